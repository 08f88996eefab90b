/**
 * Runs `task` for the newest value only: while one run is in flight, later values replace each
 * other and the last one runs next. Clicking fast sends one update per round trip, not a queue.
 */
export class LatestOnly<T> {
  readonly #task: (value: T) => Promise<unknown>;
  readonly #onError: (error: unknown) => void;
  #pending: { value: T } | undefined;
  #running: Promise<void> | undefined;

  constructor(task: (value: T) => Promise<unknown>, onError: (error: unknown) => void) {
    this.#task = task;
    this.#onError = onError;
  }

  /** Queues `value`: it runs after the one in flight, replacing any value still waiting. */
  push(value: T): void {
    this.#pending = { value };
    this.#running ??= this.#drain();
  }

  /** Settles once every pushed value has been sent (or failed). */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  async #drain(): Promise<void> {
    while (this.#pending) {
      const { value } = this.#pending;
      this.#pending = undefined;
      try {
        await this.#task(value);
      } catch (error) {
        this.#onError(error);
      }
    }
    this.#running = undefined;
  }
}
