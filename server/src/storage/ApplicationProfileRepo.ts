import type { Kysely } from 'kysely';
import { PreparedListQuery } from './preparedListQuery.ts';
import type { Database } from './schema.ts';

declare module './schema.ts' {
  interface Database {
    application_profiles: ApplicationProfilesTable;
  }
}

/** Migration 0007_application_profiles: one external identity's profile from its provider. */
export interface ApplicationProfilesTable {
  application_id: string;
  auth_type: string;
  external_id: string;
  provider_type: string;
  provider_id: string | null;
  provider_issued_user_id: string;
  username: string | null;
  avatar_hash: string | null;
  metadata: string | null;
  updated_at: number | string;
}

/** The identity a profile belongs to (external_identities' key). */
export interface IdentityKey {
  applicationId: string;
  authType: string;
  externalId: string;
}

/** What a provider says about one identity; written whole on every exchange (the provider's latest word). */
export interface ProfileData {
  providerType: string;
  providerId: string | null;
  providerIssuedUserId: string;
  username: string | null;
  avatarHash: string | null;
  metadata: string | null;
}

export type ApplicationProfileRow = ApplicationProfilesTable & { user_id: string };

/**
 * The users' profiles in an application, with whose identity each is today. Every Identify and
 * `GET /users/@me` reads one user's: built once (PreparedListQuery), as kysely building this join
 * each time cost more than running it.
 */
const profilesOfUsers = new PreparedListQuery(1, (db, userIds: readonly string[], applicationId: string) =>
  db
    .selectFrom('application_profiles as p')
    .innerJoin('external_identities as e', (j) =>
      j.onRef('e.application_id', '=', 'p.application_id').onRef('e.auth_type', '=', 'p.auth_type').onRef('e.external_id', '=', 'p.external_id'),
    )
    .selectAll('p')
    .select('e.user_id')
    .where('p.application_id', '=', applicationId)
    .where('e.user_id', 'in', userIds)
    .orderBy('e.created_at')
    .orderBy('p.auth_type')
    .orderBy('p.external_id'),
);

/**
 * Application profiles (UserApplicationProfileHandle). Writes take the caller's executor, so a
 * merge writes the profile in the grant's transaction; reads join external_identities, which
 * says whose identity (and so whose profile) it is today.
 */
export class ApplicationProfileRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Inserts or replaces the profile of an identity that exists (the foreign key refuses others);
   * with `keepExisting`, a profile already there stays as it is.
   */
  async upsert(key: IdentityKey, data: ProfileData, options: { keepExisting?: boolean; db?: Kysely<Database> } = {}): Promise<void> {
    const db = options.db ?? this.db;
    const values = {
      provider_type: data.providerType,
      provider_id: data.providerId,
      provider_issued_user_id: data.providerIssuedUserId,
      username: data.username,
      avatar_hash: data.avatarHash,
      metadata: data.metadata,
      updated_at: Date.now(),
    };
    await db
      .insertInto('application_profiles')
      .values({ application_id: key.applicationId, auth_type: key.authType, external_id: key.externalId, ...values })
      .onConflict((oc) => {
        const target = oc.columns(['application_id', 'auth_type', 'external_id']);
        return options.keepExisting ? target.doNothing() : target.doUpdateSet(values);
      })
      .execute();
  }

  /** The profiles of one application's identities held by these users, oldest link first. */
  async ofUsers(applicationId: string, userIds: readonly string[], db: Kysely<Database> = this.db): Promise<Map<string, ApplicationProfileRow[]>> {
    const out = new Map<string, ApplicationProfileRow[]>();
    const ids = [...new Set(userIds)];
    if (ids.length === 0) return out;
    const rows = await profilesOfUsers.all(this.db, db, ids, applicationId);
    for (const r of rows) out.set(r.user_id, [...(out.get(r.user_id) ?? []), r]);
    return out;
  }
}
