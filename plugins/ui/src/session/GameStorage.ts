/**
 * This game's corner of localStorage: every key is `socialLayer.<game>.<key>`, so two games on
 * one origin (the server hosts several under /games/) never read each other's device ID. Works
 * without storage too (private modes that throw, Node): values then last as long as the page.
 */
export class GameStorage {
  /** What every key of this game starts with in localStorage: `socialLayer.<game>.`. */
  readonly prefix: string;
  readonly #storage: Storage | undefined;
  readonly #memory = new Map<string, string>();

  constructor(game: string, storage: Storage | undefined = globalThis.localStorage) {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(game)) throw new Error(`GameStorage: game must be 1-64 letters, digits, _ or - (got ${JSON.stringify(game)})`);
    this.prefix = `socialLayer.${game}.`;
    this.#storage = storage;
  }

  /** The value stored under `key` in this game's namespace, or undefined. */
  get(key: string): string | undefined {
    try {
      return this.#storage?.getItem(this.prefix + key) ?? this.#memory.get(key);
    } catch {
      return this.#memory.get(key);
    }
  }

  /** Stores `value` under `key` in this game's namespace. */
  set(key: string, value: string): void {
    this.#memory.set(key, value);
    try {
      this.#storage?.setItem(this.prefix + key, value);
    } catch {
      // Quota or a storage that refuses writes: the in-memory copy still serves this page.
    }
  }

  /** Removes `key` from this game's namespace. */
  remove(key: string): void {
    this.#memory.delete(key);
    try {
      this.#storage?.removeItem(this.prefix + key);
    } catch {
      // As in set: nothing more to do.
    }
  }

  /** The stored value when `valid` accepts it, else a new one from `make`, stored. */
  getOrCreate(key: string, make: () => string, valid: (value: string) => boolean = (value) => value.length > 0): string {
    const existing = this.get(key);
    if (existing !== undefined && valid(existing)) return existing;
    const value = make();
    this.set(key, value);
    return value;
  }

  /** A stored string map (member metadata), or undefined when absent or not one. */
  getRecord(key: string): Record<string, string> | undefined {
    const raw = this.get(key);
    if (raw === undefined) return undefined;
    try {
      const value = JSON.parse(raw) as unknown;
      if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
      const entries = Object.entries(value as Record<string, unknown>);
      return entries.every(([, v]) => typeof v === 'string') ? (value as Record<string, string>) : undefined;
    } catch {
      return undefined;
    }
  }

  /** Stores a record of strings under `key` (JSON), as `getRecord` reads it. */
  setRecord(key: string, value: Record<string, string>): void {
    this.set(key, JSON.stringify(value));
  }
}
