import type BetterSqlite3 from 'better-sqlite3';
import { type Compilable, type CompiledQuery, type Kysely, type QueryResult, type Transaction } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database> | Transaction<Database>;

/** One parameter's place in the compiled query: the caller's argument `i`, or a constant the query itself holds. */
type Slot = { arg: number } | { value: unknown };

interface Compiled {
  query: CompiledQuery;
  slots: Slot[];
}

/** A call's parameters: each slot's argument or constant, in the compiled query's order. */
const parametersOf = (c: Compiled, args: readonly unknown[]): unknown[] => c.slots.map((s) => ('arg' in s ? args[s.arg] : s.value));

/** The better-sqlite3 handle under each SQLite Kysely (database.ts registers it), for array reads. */
const sqliteHandles = new WeakMap<Kysely<Database>, BetterSqlite3.Database>();

export function registerSqliteHandle(root: Kysely<Database>, handle: BetterSqlite3.Database): void {
  sqliteHandles.set(root, handle);
}

/**
 * A query that kysely builds and compiles once per database, then runs with new arguments.
 * kysely builds an operation tree and compiles it to SQL on every call: a point lookup through
 * the builder took 10.8 µs where the same compiled query run again took 3.2 µs and the bare
 * better-sqlite3 statement 1.7 µs (a microbenchmark on a busy machine). The reads every request
 * makes (its token, its user, a lobby and its members) pay the building once per process instead.
 *
 * `build` is called once with a marker string in place of each argument; in the compiled
 * parameter list each marker is replaced by the call's argument in the same place. An argument
 * must therefore reach the query as a bound parameter (a `where` value), not as an identifier, a
 * list to expand (preparedListQuery.ts does `in` lists) or anything the builder inspects.
 */
export class PreparedQuery<Args extends unknown[], Row> {
  private readonly compiled = new WeakMap<Kysely<Database>, Compiled>();
  /** The raw and the plucked SQLite statement of `rows` and `column`, per database handle. */
  private readonly statements = { rows: new WeakMap<BetterSqlite3.Database, BetterSqlite3.Statement>(), column: new WeakMap<BetterSqlite3.Database, BetterSqlite3.Statement>() };

  constructor(
    private readonly arity: Args['length'],
    private readonly build: (db: Kysely<Database>, ...args: Args) => Compilable<Row>,
  ) {}

  /** Every row. `root` compiles (the dialect's SQL is the same in and out of a transaction); `db` runs it. */
  async all(root: Kysely<Database>, db: Db, ...args: Args): Promise<Row[]> {
    return (await this.execute(root, db, args)).rows;
  }

  /** A write: how many rows it changed (an UPDATE that matched none: 0). */
  async run(root: Kysely<Database>, db: Db, ...args: Args): Promise<number> {
    return Number((await this.execute(root, db, args)).numAffectedRows ?? 0n);
  }

  /** The first row, or undefined. */
  async first(root: Kysely<Database>, db: Db, ...args: Args): Promise<Row | undefined> {
    return (await this.all(root, db, ...args))[0];
  }

  /**
   * Every row as an array of its values in the select's order. better-sqlite3 builds a row object
   * property by property: a lobby's 100 members with their users took 347 µs as objects and 177 µs
   * as arrays, its 100 member IDs 76 µs as objects and 15 µs as a plucked column (scratch
   * microbenchmark). kysely has no array mode, so on SQLite this runs its own statement, in the
   * mode asked for, on the same connection and under the same lock kysely's driver takes: inside
   * a transaction the caller already holds it; outside one, `connection()` waits for it, so the
   * read never sees another request's uncommitted writes. PostgreSQL reads objects and converts.
   * `db` must be `root` or an open transaction begun on it: a transaction is trusted to hold the
   * lock, and one of another database or already finished would not.
   */
  async rows(root: Kysely<Database>, db: Db, ...args: Args): Promise<unknown[][]> {
    return this.read(root, db, args, 'rows') as Promise<unknown[][]>;
  }

  /** The first column of every row (`rows` plucked). */
  async column(root: Kysely<Database>, db: Db, ...args: Args): Promise<unknown[]> {
    return this.read(root, db, args, 'column');
  }

  /** The compiled query through kysely's driver, with this call's arguments. */
  private execute(root: Kysely<Database>, db: Db, args: Args): Promise<QueryResult<Row>> {
    const c = this.compile(root);
    return db.executeQuery<Row>({ ...c.query, parameters: parametersOf(c, args) } as CompiledQuery<Row>);
  }

  private async read(root: Kysely<Database>, db: Db, args: Args, mode: 'rows' | 'column'): Promise<unknown[]> {
    const c = this.compile(root);
    const parameters = parametersOf(c, args);
    // A Kysely bound to one connection (connection().execute) would wait below for itself.
    if (db !== root && !db.isTransaction) throw new Error('PreparedQuery: an array read runs on the root database or in one of its transactions');
    const handle = sqliteHandles.get(root);
    if (!handle) {
      const { rows } = await db.executeQuery<Record<string, unknown>>({ ...c.query, parameters } as CompiledQuery<Record<string, unknown>>);
      return mode === 'rows' ? rows.map((r) => Object.values(r)) : rows.map((r) => Object.values(r)[0]);
    }
    let statement = this.statements[mode].get(handle);
    if (!statement) {
      statement = handle.prepare(c.query.sql);
      if (mode === 'rows') statement.raw(true);
      else statement.pluck(true);
      this.statements[mode].set(handle, statement);
    }
    const run = () => statement.all(parameters);
    return db.isTransaction ? run() : root.connection().execute(async () => run());
  }

  private compile(root: Kysely<Database>): Compiled {
    let c = this.compiled.get(root);
    if (c) return c;
    const markers = Array.from({ length: this.arity }, (_, i) => `\u0000prepared-argument-${i}\u0000`);
    const query = this.build(root, ...(markers as Args)).compile();
    const slots = query.parameters.map((p): Slot => {
      const i = typeof p === 'string' ? markers.indexOf(p) : -1;
      return i >= 0 ? { arg: i } : { value: p };
    });
    // Every argument must have landed as a parameter, else the SQL would hold a marker.
    for (let i = 0; i < this.arity; i++) {
      if (!slots.some((s) => 'arg' in s && s.arg === i)) throw new Error(`PreparedQuery: argument ${i} is not a bound parameter of ${query.sql}`);
    }
    c = { query, slots };
    this.compiled.set(root, c);
    return c;
  }
}
