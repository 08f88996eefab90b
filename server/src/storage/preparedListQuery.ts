import type { Compilable, Kysely, Transaction } from 'kysely';
import { PreparedQuery } from './preparedQuery.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database> | Transaction<Database>;

/**
 * The longest list compiled. Longer lists are rare (a page of 100 messages' authors is the
 * largest a request asks for) and are built each time, as any query is without this class.
 */
export const MAX_COMPILED_LIST = 128;

/** The smallest power of two at least `n`: the compiled form a list of `n` items runs in. */
const bucketOf = (n: number): number => 2 ** Math.ceil(Math.log2(n));

/**
 * A PreparedQuery (storage/preparedQuery.ts) with one list argument that it only tests membership
 * in (`where x in list`). A list's length is part of the SQL (one parameter per item), so this
 * compiles one form per length bucket, 1, 2, 4, ... up to MAX_COMPILED_LIST (eight forms at most
 * per database), and pads a list to its bucket with repeats of its last item: a repeat in an IN
 * list matches no other row. Before, each such read had a prepared one-item form beside a query
 * built per call for two or more, and only the one-item case was fast.
 *
 * `build` gets the list first; the list must reach the query only as the right side of `in`
 * (anything else would change with the padding), and must not be empty (callers answer an empty
 * list themselves: `in ()` is not SQL PostgreSQL accepts).
 */
export class PreparedListQuery<Item, Args extends unknown[], Row> {
  private readonly forms = new Map<number, PreparedQuery<unknown[], Row>>();

  constructor(
    private readonly arity: Args['length'],
    private readonly build: (db: Kysely<Database>, list: readonly Item[], ...args: Args) => Compilable<Row>,
  ) {}

  /** Every row. `root` compiles; `db` (root or one of its transactions) runs it. */
  async all(root: Kysely<Database>, db: Db, list: readonly Item[], ...args: Args): Promise<Row[]> {
    if (list.length === 0) throw new Error('PreparedListQuery: the list is empty');
    if (list.length > MAX_COMPILED_LIST) return (await db.executeQuery(this.build(db, list, ...args).compile())).rows;
    const size = bucketOf(list.length);
    const padded = list.length === size ? list : [...list, ...Array<Item>(size - list.length).fill(list[list.length - 1]!)];
    return this.form(size).all(root, db, ...padded, ...args);
  }

  /** The compiled form for lists of `size`: its first `size` arguments are the list's items. */
  private form(size: number): PreparedQuery<unknown[], Row> {
    let form = this.forms.get(size);
    if (!form) {
      form = new PreparedQuery<unknown[], Row>(size + this.arity, (db, ...flat) => this.build(db, flat.slice(0, size) as Item[], ...(flat.slice(size) as Args)));
      this.forms.set(size, form);
    }
    return form;
  }
}
