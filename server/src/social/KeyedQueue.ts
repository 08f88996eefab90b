/**
 * Runs tasks one at a time per key, in arrival order. Presence fan-out awaits the database between
 * reading a user's state and publishing it; without this, two quick updates of one user could
 * reach friends in the wrong order and leave them showing the older one.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<void>>();

  run(key: string, task: () => Promise<void>): Promise<void> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.then(task, task);
    const tail = next.catch(() => {});
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }
}
