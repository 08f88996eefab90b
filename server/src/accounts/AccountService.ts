import { randomBytes } from 'node:crypto';
import type { Transaction } from 'kysely';
import { ApiErrorCode } from '@social-layer/protocol';
import { ApiError } from '../errors/ApiError.ts';
import type { Logger } from '../log/Logger.ts';
import type { ProfileData } from '../storage/ApplicationProfileRepo.ts';
import type { Database, UsersTable } from '../storage/schema.ts';
import { toMs } from '../storage/schema.ts';
import type { Store } from '../storage/Store.ts';
import { userToWire } from '../storage/UserRepo.ts';
import { mergeSteps } from './merge.ts';
import { type ScryptCost, decoyHash, hashPassword, verifyPassword } from './passwords.ts';

/** Closes the live Gateway sessions of a user whose tokens were revoked (GatewayServer implements it). */
export interface SessionCloser {
  closeUserSessions(userId: string, applicationId?: string): void;
}

export const PERMANENT_BAN = Number.MAX_SAFE_INTEGER;
export const LOGIN_PATTERN = /^[a-z0-9_.]{2,32}$/;

type Tx = Transaction<Database>;

export function isBanned(user: Pick<UsersTable, 'banned_until'>, now = Date.now()): boolean {
  const until = toMs(user.banned_until ?? null);
  return until !== null && until > now;
}

/**
 * Full platform accounts and everything that ends or moves an account's access: sign-up and
 * sign-in, deauthorizing an application (revoke, "remove app"), unlinking a game, bans, and
 * merging a provisional account into a full one and back. Each operation is one transaction
 * that also records its APPLICATION_DEAUTHORIZED webhook events; live Gateway sessions are
 * closed (4004) only after it commits.
 */
export class AccountService {
  gateway: SessionCloser | null = null;

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
    private readonly passwordCost: ScryptCost,
  ) {}

  private tx<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.store.database.db.transaction().execute(fn);
  }

  // ---- sign-up and sign-in ----

  async signUp(input: { login: string; password: string; displayName?: string; email?: string }): Promise<UsersTable | 'taken'> {
    const passwordHash = await hashPassword(input.password, this.passwordCost);
    const user = await this.store.accounts.create({
      login: input.login,
      displayName: input.displayName?.trim() || null,
      email: input.email?.trim() || null,
      passwordHash,
    });
    return user ?? 'taken';
  }

  /** The user for a name and password; the same answer for an unknown name and a wrong password. */
  async signIn(login: string, password: string): Promise<UsersTable | 'invalid' | 'banned'> {
    const account = await this.store.accounts.findByLogin(login);
    if (!account) {
      await verifyPassword(password, await decoyHash(this.passwordCost));
      return 'invalid';
    }
    if (!(await verifyPassword(password, account.password_hash))) return 'invalid';
    const user = await this.store.users.get(account.user_id);
    if (!user) return 'invalid';
    return isBanned(user) ? 'banned' : user;
  }

  // ---- revocation ----

  /**
   * The user removes the application (or revokes a token of it): every token of the pair goes,
   * with the authorization, and so do those of the application's children, which the parent's
   * authorization was the basis of. Records APPLICATION_DEAUTHORIZED per application.
   */
  async deauthorize(applicationId: string, userId: string): Promise<void> {
    const affected = await this.tx((tx) => this.deauthorizeIn(tx, applicationId, userId));
    this.log.debug({ applicationId, userId, applications: affected.length }, 'application deauthorized');
    for (const app of affected) this.gateway?.closeUserSessions(userId, app);
  }

  async deauthorizeIn(tx: Tx, applicationId: string, userId: string): Promise<string[]> {
    const user = await tx.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
    if (!user) return [];
    const children = await tx.selectFrom('applications').select('id').where('parent_id', '=', applicationId).execute();
    const apps = [applicationId, ...children.map((c) => c.id)];
    for (const app of apps) {
      const had = await this.store.oauth.removeAuthorization(tx, app, userId);
      const tokens = await tx.selectFrom('access_tokens').select('token_hash').where('user_id', '=', userId).where('application_id', '=', app).limit(1).execute();
      await this.store.tokens.revokeAll(tx, userId, app);
      if (had || tokens.length > 0) await this.store.webhookEvents.record(tx, app, 'APPLICATION_DEAUTHORIZED', { user: userToWire(user) });
    }
    return apps;
  }

  /**
   * The user unlinks a game (the account page's connected games): the application is
   * deauthorized and the external identities that linked the game's accounts to this user are
   * split off into a new provisional account, so the player keeps playing as a guest.
   */
  async unlink(applicationId: string, userId: string): Promise<void> {
    const affected = await this.tx(async (tx) => {
      const identities = await tx.selectFrom('external_identities').selectAll().where('user_id', '=', userId).where('application_id', '=', applicationId).execute();
      if (identities.length > 0) {
        const guest = await this.newProvisional(tx, null, null);
        await tx.updateTable('external_identities').set({ user_id: guest.id }).where('user_id', '=', userId).where('application_id', '=', applicationId).execute();
      }
      return this.deauthorizeIn(tx, applicationId, userId);
    });
    this.log.debug({ applicationId, userId }, 'game unlinked');
    for (const app of affected) this.gateway?.closeUserSessions(userId, app);
  }

  /**
   * A platform ban (spec, Authentication 7): tokens and browser sessions are deleted at once,
   * every application gets APPLICATION_DEAUTHORIZED, and each game's external identities move to
   * a new provisional account restricted across platforms that carries them, so the game can
   * still tell the player apart. Merging that account answers 530017 until the ban lifts.
   */
  async ban(userId: string, until: number = PERMANENT_BAN): Promise<void> {
    await this.tx(async (tx) => {
      const user = await tx.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
      if (!user) throw new ApiError(404, ApiErrorCode.UnknownUser, 'Unknown User');
      await tx.updateTable('users').set({ banned_until: until }).where('id', '=', userId).execute();
      const identities = await tx.selectFrom('external_identities').selectAll().where('user_id', '=', userId).execute();
      const byApp = new Map<string, typeof identities>();
      for (const i of identities) byApp.set(i.application_id, [...(byApp.get(i.application_id) ?? []), i]);
      for (const [appId] of byApp) {
        const restricted = await this.newProvisional(tx, user.global_name ?? null, userId);
        await tx.updateTable('external_identities').set({ user_id: restricted.id }).where('user_id', '=', userId).where('application_id', '=', appId).execute();
      }
      const authorized = await tx.selectFrom('oauth_authorizations').select('application_id').where('user_id', '=', userId).execute();
      const tokenApps = await tx.selectFrom('access_tokens').select('application_id').where('user_id', '=', userId).distinct().execute();
      const apps = new Set([...authorized.map((a) => a.application_id), ...tokenApps.map((a) => a.application_id)]);
      for (const app of apps) await this.deauthorizeIn(tx, app, userId);
      await this.store.tokens.revokeAll(tx, userId);
      await this.store.accounts.closeSessionsOf(tx, userId);
    });
    this.gateway?.closeUserSessions(userId);
    this.log.info({ userId }, 'user banned');
  }

  async unban(userId: string): Promise<void> {
    await this.store.database.db.updateTable('users').set({ banned_until: null }).where('id', '=', userId).execute();
  }

  // ---- provisional accounts ----

  private async newProvisional(tx: Tx, globalName: string | null, restrictedFrom: string | null): Promise<UsersTable> {
    const user: UsersTable = {
      id: this.store.ids.next(),
      username: `guest_${randomBytes(6).toString('hex')}`,
      global_name: globalName,
      avatar: null,
      is_provisional: 1,
      is_bot: 0,
      created_at: Date.now(),
      restricted_from: restrictedFrom,
    };
    await tx.insertInto('users').values(user).execute();
    return user;
  }

  /**
   * Links an external identity to a full account inside a token grant's transaction. When a
   * provisional account holds the identity, its data moves over (every registered merge step)
   * and it is deleted. Returns the provisional user that was merged, if any, whose sessions the
   * caller closes after commit. The identity's application profile, when the provider gave one,
   * is written in the same transaction (it follows the identity, so a merge moves it too).
   */
  async mergeIn(tx: Tx, applicationId: string, authType: string, externalId: string, fullUserId: string, profile?: ProfileData): Promise<string | undefined> {
    const merged = await this.mergeIdentityIn(tx, applicationId, authType, externalId, fullUserId);
    if (profile) await this.store.applicationProfiles.upsert({ applicationId, authType, externalId }, profile, { db: tx });
    return merged;
  }

  private async mergeIdentityIn(tx: Tx, applicationId: string, authType: string, externalId: string, fullUserId: string): Promise<string | undefined> {
    const identity = await tx
      .selectFrom('external_identities')
      .selectAll()
      .where('application_id', '=', applicationId)
      .where('auth_type', '=', authType)
      .where('external_id', '=', externalId)
      .executeTakeFirst();
    if (!identity) {
      await tx.insertInto('external_identities').values({ application_id: applicationId, auth_type: authType, external_id: externalId, user_id: fullUserId, created_at: Date.now() }).execute();
      return undefined;
    }
    if (identity.user_id === fullUserId) return undefined;
    const source = await tx.selectFrom('users').selectAll().where('id', '=', identity.user_id).executeTakeFirst();
    if (!source) throw new ApiError(404, ApiErrorCode.UnknownUser, 'Unknown User');
    if (source.is_provisional !== 1) throw new ApiError(400, ApiErrorCode.AccountNotProvisional, 'This external identity is already linked to another account');
    await this.checkMergeAllowed(tx, source);
    for (const step of mergeSteps()) await step(tx, source.id, fullUserId, applicationId);
    await tx.updateTable('external_identities').set({ user_id: fullUserId }).where('user_id', '=', source.id).execute();
    await this.store.tokens.revokeAll(tx, source.id);
    await tx.deleteFrom('users').where('id', '=', source.id).execute();
    this.log.debug({ applicationId, from: source.id, into: fullUserId, authType }, 'provisional account merged');
    return source.id;
  }

  /** 530017 while the user a restricted provisional account was split from is banned. */
  async checkMergeAllowed(tx: Tx, source: UsersTable): Promise<void> {
    if (!source.restricted_from) return;
    const banned = await tx.selectFrom('users').select('banned_until').where('id', '=', source.restricted_from).executeTakeFirst();
    if (banned && isBanned(banned)) throw new ApiError(400, ApiErrorCode.MergeSourceBanned, 'The account linked to this identity is banned');
  }

  /**
   * UnmergeIntoProvisionalAccount: the external identity leaves the full account for a new
   * provisional account; every token of the full account for the application is invalidated.
   */
  async unmerge(applicationId: string, authType: string, externalId: string): Promise<void> {
    const fullUserId = await this.tx(async (tx) => {
      const identity = await tx
        .selectFrom('external_identities')
        .selectAll()
        .where('application_id', '=', applicationId)
        .where('auth_type', '=', authType)
        .where('external_id', '=', externalId)
        .executeTakeFirst();
      if (!identity) throw new ApiError(404, ApiErrorCode.UnknownUser, 'Unknown User');
      const user = await tx.selectFrom('users').selectAll().where('id', '=', identity.user_id).executeTakeFirstOrThrow();
      if (user.is_provisional === 1) throw new ApiError(400, ApiErrorCode.AccountNotProvisional, 'This identity is not linked to a full account');
      const guest = await this.newProvisional(tx, user.global_name ?? null, null);
      await tx
        .updateTable('external_identities')
        .set({ user_id: guest.id })
        .where('application_id', '=', applicationId)
        .where('auth_type', '=', authType)
        .where('external_id', '=', externalId)
        .execute();
      await this.deauthorizeIn(tx, applicationId, user.id);
      return user.id;
    });
    // The identity's kind only: its external ID can be a bot-issued player ID or a device ID.
    this.log.debug({ applicationId, userId: fullUserId, authType }, 'identity unmerged');
    this.gateway?.closeUserSessions(fullUserId, applicationId);
  }
}
