import {
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type DatabaseMetadataOptions,
  type Kysely,
  PostgresDialect,
  type SchemaMetadata,
  type TableMetadata,
  sql,
} from 'kysely';

/**
 * PostgreSQL dialect whose introspection sees one schema only.
 *
 * Kysely's own introspector reads every schema in the database and calls
 * `has_schema_privilege(name, ...)` on each by name: when another process drops a schema between
 * the catalog scan and that call, the migration fails with "schema ... does not exist". Test
 * suites share one database with a schema each and drop theirs when done, so that race is real
 * (it failed a CI run). The migrator only asks whether its two tables exist, so this answers from
 * our schema alone, by OID, which also keeps startup fast in a database with many schemas.
 */
export class SchemaScopedPostgresDialect extends PostgresDialect {
  constructor(
    config: ConstructorParameters<typeof PostgresDialect>[0],
    private readonly schema: string | null,
  ) {
    super(config);
  }

  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SchemaScopedIntrospector(db, this.schema);
  }
}

class SchemaScopedIntrospector implements DatabaseIntrospector {
  constructor(
    private readonly db: Kysely<any>,
    /** null: the connection's `current_schema()` (the first schema on its search_path). */
    private readonly schema: string | null,
  ) {}

  private get schemaName() {
    return this.schema === null ? sql`current_schema()` : sql`${this.schema}`;
  }

  async getSchemas(): Promise<SchemaMetadata[]> {
    const rows = await sql<{ nspname: string }>`select nspname from pg_catalog.pg_namespace where nspname = ${this.schemaName}`.execute(this.db);
    return rows.rows.map((r) => ({ name: r.nspname }));
  }

  async getTables(_options?: DatabaseMetadataOptions): Promise<TableMetadata[]> {
    const rows = await sql<{ relname: string; relkind: string; nspname: string }>`
      select c.relname, c.relkind, ns.nspname from pg_catalog.pg_class c
      join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
      where ns.nspname = ${this.schemaName} and c.relkind in ('r', 'v', 'p')
      order by c.relname`.execute(this.db);
    // Columns are not read: nothing in the server introspects them, and the migrator needs names.
    return rows.rows.map((r) => ({ name: r.relname, schema: r.nspname, isView: r.relkind === 'v', columns: [] }));
  }

  async getMetadata(options?: DatabaseMetadataOptions): Promise<DatabaseMetadata> {
    return { tables: await this.getTables(options) };
  }
}
