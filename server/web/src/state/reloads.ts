/**
 * Reloads of one thing (the guild list, one guild's detail), one at a time per key, with events
 * that arrive during a reload folded into one more reload after it.
 *
 * Why: a burst of Gateway events (three CHANNEL_CREATEs in a row) used to start three concurrent
 * reloads, and the one whose responses came back last won, which need not be the one started
 * last; the page could keep a list without the newest channel until the next event. Serial
 * reloads apply in the order they were started, the last one starts after the last event, and a
 * burst costs two reloads instead of one per event.
 */
export class Reloads {
  private readonly running = new Map<string, { again: boolean; done: Promise<void> }>();

  /** Runs `load` now, or once more after the running one for `key` (whose promise it returns). */
  run(key: string, load: () => Promise<void>): Promise<void> {
    const current = this.running.get(key);
    if (current) {
      current.again = true;
      return current.done;
    }
    const entry = { again: false, done: Promise.resolve() };
    entry.done = (async () => {
      try {
        do {
          entry.again = false;
          await load();
        } while (entry.again);
      } finally {
        this.running.delete(key);
      }
    })();
    this.running.set(key, entry);
    return entry.done;
  }
}

/** `load` wrapped so calls fold the same way (a view's single reload). */
export function serialReload(load: () => Promise<unknown>): () => Promise<void> {
  const reloads = new Reloads();
  return () => reloads.run('', async () => void (await load()));
}
