import { randomInt } from 'node:crypto';
import type { Transaction } from 'kysely';
import { Limits, type TokenResponse } from '@social-layer/protocol';
import type { AccountService } from '../accounts/AccountService.ts';
import { isBanned } from '../accounts/AccountService.ts';
import { type ExternalIdentity, resolveExternalIdentity } from '../accounts/externalIdentity.ts';
import { hashSecret, newSecret } from '../auth/secrets.ts';
import { ApiError } from '../errors/ApiError.ts';
import type { Logger } from '../log/Logger.ts';
import type { ApplicationsTable, Database, UsersTable } from '../storage/schema.ts';
import { toMs } from '../storage/schema.ts';
import type { Store } from '../storage/Store.ts';
import { userToWire } from '../storage/UserRepo.ts';
import type { AuthenticatedClient } from './clientAuth.ts';
import { OAuthError, OAuthErrors } from './OAuthError.ts';
import type { OidcVerifier } from './OidcVerifier.ts';
import { isValidChallenge, verifierMatches } from './pkce.ts';
import { redirectUriAllowed, withParams } from './redirects.ts';
import { CHILD_TOKEN_SCOPES, CLIENT_CREDENTIALS_SCOPES, forbiddenScope, parseScopeString, tokenScopes } from './scopes.ts';
import type { SigningKeys } from './SigningKeys.ts';
import { guildWire } from '../guilds/guildWire.ts';

type Tx = Transaction<Database>;

export const GRANT_DEVICE_CODE = 'urn:ietf:params:oauth:grant-type:device_code';
export const GRANT_TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const TOKEN_TYPE_ACCESS = 'urn:ietf:params:oauth:token-type:access_token';

export interface OAuthOptions {
  codeTtlSeconds: number;
  deviceCodeTtlSeconds: number;
  deviceIntervalSeconds: number;
}

/** A checked authorization request: everything the consent page shows and the code will carry. */
export interface AuthorizeRequest {
  application: ApplicationsTable;
  redirectUri: string;
  scopes: string[];
  state: string | undefined;
  codeChallenge: string | undefined;
  nonce: string | undefined;
  prompt: string | undefined;
  integrationType: number | undefined;
}

/**
 * What went wrong with an authorization request. Before the client and redirect URI are known
 * to be good the user sees an error page and is never redirected (RFC 6749 4.1.2.1); after,
 * the error goes back to the redirect URI with the state.
 */
export type AuthorizeCheck = { ok: AuthorizeRequest } | { page: string } | { redirect: string };

/**
 * The OAuth2 provider: authorization requests and codes (PKCE S256), the token endpoint's
 * grants (authorization_code, refresh_token, client_credentials, device_code and token
 * exchange for child applications), revocation, the device flow, and OpenID ID tokens.
 */
export class OAuthService {
  constructor(
    private readonly store: Store,
    private readonly accounts: AccountService,
    private readonly keys: SigningKeys,
    private readonly oidc: OidcVerifier,
    private readonly options: OAuthOptions,
    private readonly log: Logger,
  ) {}

  private tx<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.store.database.db.transaction().execute(fn);
  }

  // ---- authorization requests ----

  async checkAuthorize(q: URLSearchParams): Promise<AuthorizeCheck> {
    for (const key of new Set(q.keys())) if (q.getAll(key).length > 1) return { page: `The parameter ${key} appears more than once.` };
    const clientId = q.get('client_id') ?? '';
    const application = /^\d{1,20}$/.test(clientId) ? await this.store.applications.get(clientId) : undefined;
    // The platform's own client has no OAuth2 flow: its tokens are the web app's session.
    if (!application || application.first_party === 1) return { page: 'Unknown application (client_id).' };
    const registered = await this.store.oauth.redirectUris(application.id);
    let redirectUri = q.get('redirect_uri') ?? undefined;
    if (redirectUri === undefined) {
      // Without redirect_uri, the one registered web URI is used; anything else is ambiguous.
      const web = registered.filter((u) => /^https?:/.test(u));
      if (web.length !== 1) return { page: 'This request has no redirect_uri.' };
      redirectUri = web[0]!;
    } else if (!redirectUriAllowed(redirectUri, application.id, registered)) {
      return { page: 'The redirect_uri does not match any URI registered for this application.' };
    }
    const state = q.get('state') ?? undefined;
    const back = (error: string, description: string) => ({ redirect: withParams(redirectUri!, { error, error_description: description, state }) });
    if (state !== undefined && state.length > 1024) return back('invalid_request', 'state is too long');
    if (q.get('response_type') !== 'code') return back('unsupported_response_type', 'Only response_type=code is supported');
    const scopes = parseScopeString(q.get('scope') ?? '');
    if (scopes.length === 0) return back('invalid_scope', 'No scope was requested');
    const bad = forbiddenScope(scopes, application.approved_scopes ?? '');
    if (bad) return back('invalid_scope', `The scope ${bad} is not valid for this application`);
    const challenge = q.get('code_challenge') ?? undefined;
    const method = q.get('code_challenge_method') ?? undefined;
    if (challenge !== undefined || method !== undefined) {
      if (method !== 'S256') return back('invalid_request', 'code_challenge_method must be S256');
      if (!challenge || !isValidChallenge(challenge)) return back('invalid_request', 'code_challenge must be 43 characters of base64url');
    }
    const nonce = q.get('nonce') ?? undefined;
    if (nonce !== undefined && nonce.length > 256) return back('invalid_request', 'nonce is too long');
    const prompt = q.get('prompt') ?? undefined;
    if (prompt !== undefined && prompt !== 'consent' && prompt !== 'none') return back('invalid_request', 'prompt must be consent or none');
    const it = q.get('integration_type');
    if (it !== null && it !== '0' && it !== '1') return back('invalid_request', 'integration_type must be 0 or 1');
    return {
      ok: { application, redirectUri, scopes, state, codeChallenge: challenge, nonce, prompt, integrationType: it === null ? undefined : Number(it) },
    };
  }

  /** Whether the user already granted every requested scope (prompt=none can then skip consent). */
  async alreadyGranted(req: AuthorizeRequest, userId: string): Promise<boolean> {
    const a = await this.store.oauth.authorization(this.store.database.db, req.application.id, userId);
    if (!a) return false;
    const have = new Set(a.scopes.split(' '));
    return req.scopes.every((s) => have.has(s));
  }

  /** The user approved: records the authorization and a code; returns where to send the browser. */
  async approve(req: AuthorizeRequest, user: UsersTable): Promise<string> {
    const code = newSecret();
    await this.tx(async (tx) => {
      const { created } = await this.store.oauth.grant(tx, req.application.id, user.id, req.scopes);
      await this.store.oauth.insertCode(tx, code, {
        application_id: req.application.id,
        user_id: user.id,
        redirect_uri: req.redirectUri,
        scopes: req.scopes.join(' '),
        code_challenge: req.codeChallenge ?? null,
        nonce: req.nonce ?? null,
        expires_at: Date.now() + this.options.codeTtlSeconds * 1000,
      });
      if (created) {
        await this.store.webhookEvents.record(tx, req.application.id, 'APPLICATION_AUTHORIZED', {
          ...(req.integrationType !== undefined ? { integration_type: req.integrationType } : {}),
          user: userToWire(user),
          scopes: req.scopes,
        });
      }
    });
    return withParams(req.redirectUri, { code, state: req.state });
  }

  /**
   * A `bot` authorization that also asked for user scopes (guilds/BotAuthorization.ts) after the
   * bot was added: records the user's authorization of those scopes and a code that remembers the
   * guild, so the token response carries it (the public "advanced bot authorization"). Returns the
   * code; the caller redirects with it, `guild_id`, `permissions` and `state`.
   */
  async approveBotCode(req: { application: ApplicationsTable; redirectUri: string; scopes: string[]; userScopes: string[]; codeChallenge: string | undefined }, user: UsersTable, guildId: string): Promise<string> {
    const code = newSecret();
    await this.tx(async (tx) => {
      // No APPLICATION_AUTHORIZED here: the bot's install recorded the one event of this
      // authorization, with every scope asked for (guilds/botWebhookEvents.ts).
      await this.store.oauth.grant(tx, req.application.id, user.id, req.userScopes);
      await this.store.oauth.insertCode(tx, code, {
        application_id: req.application.id,
        user_id: user.id,
        redirect_uri: req.redirectUri,
        // All of them, `bot` included, as the token response's `scope` names them.
        scopes: req.scopes.join(' '),
        code_challenge: req.codeChallenge ?? null,
        nonce: null,
        expires_at: Date.now() + this.options.codeTtlSeconds * 1000,
        guild_id: guildId,
      });
    });
    return code;
  }

  deny(req: AuthorizeRequest): string {
    return withParams(req.redirectUri, { error: 'access_denied', error_description: 'The user denied the request', state: req.state });
  }

  // ---- token endpoint ----

  async token(form: URLSearchParams, client: AuthenticatedClient, issuer: string): Promise<TokenResponse & { issued_token_type?: string }> {
    for (const key of new Set(form.keys())) if (form.getAll(key).length > 1) throw OAuthErrors.invalidRequest(`The parameter ${key} appears more than once`);
    // Load the signing key before any grant's transaction: on SQLite a read outside the
    // transaction would wait for the transaction's own connection.
    await this.keys.jwks();
    const grantType = form.get('grant_type');
    switch (grantType) {
      case 'authorization_code':
        return this.codeGrant(form, client, issuer);
      case 'refresh_token':
        return this.refreshGrant(form, client, issuer);
      case 'client_credentials':
        return this.clientCredentialsGrant(form, client);
      case GRANT_DEVICE_CODE:
        return this.deviceGrant(form, client, issuer);
      case GRANT_TOKEN_EXCHANGE:
        return this.childTokenGrant(form, client);
      case null:
        throw OAuthErrors.invalidRequest('grant_type is required');
      default:
        throw OAuthErrors.unsupportedGrantType();
    }
  }

  private async codeGrant(form: URLSearchParams, client: AuthenticatedClient, issuer: string): Promise<TokenResponse> {
    const code = form.get('code');
    if (!code) throw OAuthErrors.invalidRequest('code is required');
    const verifier = form.get('code_verifier') ?? undefined;
    const redirectUri = form.get('redirect_uri') ?? undefined;
    const merge = await this.mergeIdentity(form, client);
    const now = Date.now();
    let mergedAway: string | undefined;
    let replayedUser: string | undefined;
    let botGuildId: string | undefined;
    const result = await this.tx(async (tx) => {
      const row = await this.store.oauth.findCode(tx, code);
      if (!row || row.application_id !== client.application.id) throw OAuthErrors.invalidGrant('Invalid "code" in request');
      if (row.used_at !== null) {
        // A code used twice was probably stolen: the grant it made is revoked (RFC 6749 4.1.2).
        replayedUser = row.user_id;
        return undefined;
      }
      if (toMs(row.expires_at)! <= now) throw OAuthErrors.invalidGrant('The code has expired');
      if ((row.redirect_uri ?? undefined) !== redirectUri) throw OAuthErrors.invalidGrant('redirect_uri does not match the authorization request');
      if (row.code_challenge) {
        if (!verifier) throw OAuthErrors.invalidGrant('code_verifier is required');
        if (!verifierMatches(verifier, row.code_challenge)) throw OAuthErrors.invalidGrant('Invalid "code_verifier" in request');
      } else if (!client.confidential) {
        throw OAuthErrors.invalidGrant('Public clients must use PKCE');
      } else if (verifier) {
        throw OAuthErrors.invalidGrant('code_verifier was sent but no code_challenge was');
      }
      if (!(await this.store.oauth.useCode(tx, row.code_hash))) {
        replayedUser = row.user_id;
        return undefined;
      }
      const user = await tx.selectFrom('users').selectAll().where('id', '=', row.user_id).executeTakeFirst();
      if (!user || isBanned(user)) throw OAuthErrors.invalidGrant('The user can no longer authorize this application');
      if (merge) mergedAway = await this.accounts.mergeIn(tx, client.application.id, merge.authType, merge.externalId, user.id, merge.profile);
      const scopes = row.scopes.split(' ');
      botGuildId = row.guild_id ?? undefined;
      return this.issue(tx, user, client.application.id, scopes, issuer, row.nonce ?? undefined);
    });
    if (replayedUser) {
      await this.accounts.deauthorize(client.application.id, replayedUser);
      throw OAuthErrors.invalidGrant('The code was already used');
    }
    if (mergedAway) this.accounts.gateway?.closeUserSessions(mergedAway);
    // A code from a bot authorization with user scopes: the guild the bot joined, in the public
    // shape (read after the commit: on SQLite a read beside the transaction would wait on it).
    if (botGuildId) {
      const guild = await this.store.guilds.get(botGuildId);
      if (guild) return { ...result!, guild: guildWire(guild, await this.store.guilds.roles(guild.id)) } as TokenResponse;
    }
    return result!;
  }

  private async refreshGrant(form: URLSearchParams, client: AuthenticatedClient, issuer: string): Promise<TokenResponse> {
    const refresh = form.get('refresh_token');
    if (!refresh) throw OAuthErrors.invalidRequest('refresh_token is required');
    return this.tx(async (tx) => {
      const grant = await this.store.tokens.findRefresh(tx, refresh);
      if (!grant || grant.applicationId !== client.application.id) throw OAuthErrors.invalidGrant('Invalid "refresh_token" in request');
      const user = await tx.selectFrom('users').selectAll().where('id', '=', grant.userId).executeTakeFirst();
      if (!user || isBanned(user)) throw OAuthErrors.invalidGrant('Invalid "refresh_token" in request');
      // Deprecated for provisional accounts (spec, provisional accounts): the game exchanges a
      // fresh provider token instead. The refresh token a server-side OIDC exchange returns is
      // refused here, as documented.
      if (user.is_provisional === 1) throw OAuthErrors.invalidGrant('The refresh_token grant is deprecated for provisional accounts: exchange a fresh provider token at /partner-sdk/token');
      let scopes = grant.scopes;
      const asked = form.get('scope');
      if (asked !== null) {
        const narrower = parseScopeString(asked);
        if (narrower.some((s) => !scopes.includes(s))) throw OAuthErrors.invalidScope('A refresh cannot add scopes');
        scopes = narrower;
      }
      // Rotation: the old pair stops working the moment the new one exists.
      await this.store.tokens.retirePair(tx, grant.hash);
      return this.issue(tx, user, client.application.id, scopes, issuer, undefined);
    });
  }

  private async clientCredentialsGrant(form: URLSearchParams, client: AuthenticatedClient): Promise<TokenResponse> {
    if (!client.confidential) throw OAuthErrors.unauthorizedClient('client_credentials needs the client secret');
    const scopes = parseScopeString(form.get('scope') ?? 'identify');
    const bad = scopes.find((s) => !CLIENT_CREDENTIALS_SCOPES.has(s));
    if (bad) throw OAuthErrors.invalidScope(`The scope ${bad} is not available to client_credentials`);
    // The token acts as the application's own (bot) user; there is no refresh token.
    const token = await this.tx((tx) => this.store.tokens.issueIn(tx, client.application.bot_user_id, client.application.id, tokenScopes(scopes), Limits.accessTokenTtlSeconds));
    return { access_token: token, token_type: 'Bearer', expires_in: Limits.accessTokenTtlSeconds, scope: scopes.join(' ') };
  }

  private async deviceGrant(form: URLSearchParams, client: AuthenticatedClient, issuer: string): Promise<TokenResponse> {
    const deviceCode = form.get('device_code');
    if (!deviceCode) throw OAuthErrors.invalidRequest('device_code is required');
    const merge = await this.mergeIdentity(form, client);
    const now = Date.now();
    let mergedAway: string | undefined;
    const result = await this.tx(async (tx) => {
      const row = await this.store.oauth.findDeviceCode(tx, deviceCode);
      if (!row || row.application_id !== client.application.id) throw OAuthErrors.invalidGrant('Invalid "device_code" in request');
      if (row.status === 'used') throw OAuthErrors.invalidGrant('The device code was already used');
      if (toMs(row.expires_at)! <= now) throw OAuthErrors.expiredToken();
      const lastPoll = toMs(row.last_poll_at);
      await this.store.oauth.updateDeviceCode(tx, row.device_code_hash, { last_poll_at: now });
      if (row.status === 'denied') throw OAuthErrors.accessDenied();
      if (row.status === 'pending') {
        // RFC 8628 3.5: a client polling faster than the interval is told to slow down.
        if (lastPoll !== null && now - lastPoll < row.interval_s * 1000 - 250) return 'slow_down' as const;
        return 'pending' as const;
      }
      if (!(await this.store.oauth.updateDeviceCode(tx, row.device_code_hash, { status: 'used' }, 'approved'))) throw OAuthErrors.invalidGrant('The device code was already used');
      const user = await tx.selectFrom('users').selectAll().where('id', '=', row.user_id!).executeTakeFirst();
      if (!user || isBanned(user)) throw OAuthErrors.invalidGrant('The user can no longer authorize this application');
      if (merge) mergedAway = await this.accounts.mergeIn(tx, client.application.id, merge.authType, merge.externalId, user.id, merge.profile);
      return this.issue(tx, user, client.application.id, row.scopes.split(' '), issuer, undefined);
    });
    // The poll time is committed either way, so the next poll is measured from this one.
    if (result === 'pending') throw OAuthErrors.authorizationPending();
    if (result === 'slow_down') throw OAuthErrors.slowDown();
    if (mergedAway) this.accounts.gateway?.closeUserSessions(mergedAway);
    return result;
  }

  /**
   * Publisher-level linking (spec, Authentication 6): an access token of the parent application
   * is exchanged for a token of a child application (RFC 8693 token exchange). Public clients do
   * it from the game (ExchangeChildToken); confidential clients from their server with the
   * child's secret. Child tokens carry limited scopes and no refresh token.
   */
  private async childTokenGrant(form: URLSearchParams, client: AuthenticatedClient): Promise<TokenResponse & { issued_token_type?: string }> {
    const subject = form.get('subject_token');
    if (!subject) throw OAuthErrors.invalidRequest('subject_token is required');
    const type = form.get('subject_token_type');
    if (type !== null && type !== TOKEN_TYPE_ACCESS) throw OAuthErrors.invalidRequest(`subject_token_type must be ${TOKEN_TYPE_ACCESS}`);
    const child = client.application;
    if (!child.parent_id) throw OAuthErrors.unauthorizedClient('This application is not a child application');
    return this.tx(async (tx) => {
      const parent = await this.store.tokens.resolveIn(tx, subject);
      if (!parent || parent.applicationId !== child.parent_id) throw OAuthErrors.invalidGrant('Invalid "subject_token" in request');
      const user = await tx.selectFrom('users').selectAll().where('id', '=', parent.userId).executeTakeFirst();
      if (!user || user.is_bot === 1 || isBanned(user)) throw OAuthErrors.invalidGrant('Invalid "subject_token" in request');
      // The scopes the user granted the parent (not their expansion), limited to what children get.
      const granted = await this.store.oauth.authorization(tx, parent.applicationId, user.id);
      const scopes = (granted ? granted.scopes.split(' ') : parent.scopes).filter((s) => CHILD_TOKEN_SCOPES.has(s) && parent.scopes.includes(s));
      if (scopes.length === 0) throw OAuthErrors.invalidScope('The parent token has no scope a child token may carry');
      await this.store.oauth.grant(tx, child.id, user.id, scopes);
      const token = await this.store.tokens.issueIn(tx, user.id, child.id, tokenScopes(scopes), Limits.accessTokenTtlSeconds);
      return { access_token: token, token_type: 'Bearer' as const, expires_in: Limits.accessTokenTtlSeconds, scope: scopes.join(' '), issued_token_type: TOKEN_TYPE_ACCESS };
    });
  }

  /** The provisional identity to merge, when the request carries external_auth_type/token. */
  private async mergeIdentity(form: URLSearchParams, client: AuthenticatedClient): Promise<ExternalIdentity | undefined> {
    const type = form.get('external_auth_type');
    const token = form.get('external_auth_token');
    if (type === null && token === null) return undefined;
    if (!type || !token) throw OAuthErrors.invalidRequest('external_auth_type and external_auth_token go together');
    try {
      return await resolveExternalIdentity(this.store, this.oidc, client.application, type, token, client.confidential);
    } catch (err) {
      if (err instanceof ApiError) throw new OAuthError(err.status === 401 ? 400 : err.status, 'invalid_grant', err.message, err.code || undefined);
      throw err;
    }
  }

  /** An access/refresh pair (+ an ID token when openid was granted), inside the grant's transaction. */
  private async issue(tx: Tx, user: UsersTable, applicationId: string, scopes: string[], issuer: string, nonce: string | undefined): Promise<TokenResponse> {
    const pair = await this.store.tokens.issuePair(tx, user.id, applicationId, scopes, tokenScopes(scopes), Limits.accessTokenTtlSeconds);
    const out: TokenResponse = {
      access_token: pair.accessToken,
      token_type: 'Bearer',
      expires_in: Limits.accessTokenTtlSeconds,
      refresh_token: pair.refreshToken,
      scope: scopes.join(' '),
    };
    if (scopes.includes('openid')) out.id_token = await this.idToken(issuer, user, applicationId, nonce);
    return out;
  }

  /** An OpenID Connect ID token for `user`, audience the application, signed with our JWKS key. */
  async idToken(issuer: string, user: UsersTable, applicationId: string, nonce?: string): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return this.keys.sign({
      iss: issuer,
      sub: user.id,
      aud: applicationId,
      iat: now,
      exp: now + 3600,
      auth_time: now,
      ...(nonce !== undefined ? { nonce } : {}),
      preferred_username: user.username,
      name: user.global_name ?? user.username,
      is_provisional: user.is_provisional === 1,
    });
  }

  // ---- revocation ----

  /**
   * RFC 7009 revocation of an access or refresh token; like the public system, it revokes the
   * whole authorization: every token of the user for the application. Unknown tokens are not
   * an error (the token is gone either way).
   */
  async revoke(form: URLSearchParams, client: AuthenticatedClient): Promise<void> {
    const token = form.get('token');
    if (!token) throw OAuthErrors.invalidRequest('token is required');
    const hint = form.get('token_type_hint');
    if (hint !== null && hint !== 'access_token' && hint !== 'refresh_token') throw new OAuthError(400, 'unsupported_token_type', 'token_type_hint must be access_token or refresh_token');
    const db = this.store.database.db;
    const access = await db.selectFrom('access_tokens').select(['user_id', 'application_id']).where('token_hash', '=', hashSecret(token)).executeTakeFirst();
    const refresh = access ? undefined : await db.selectFrom('refresh_tokens').select(['user_id', 'application_id']).where('token_hash', '=', hashSecret(token)).executeTakeFirst();
    const owner = access ?? refresh;
    if (!owner) return;
    if (owner.application_id !== client.application.id) throw OAuthErrors.unauthorizedClient('The token was issued to another client');
    await this.accounts.deauthorize(owner.application_id, owner.user_id);
  }

  // ---- device flow (RFC 8628) ----

  async deviceAuthorize(client: AuthenticatedClient, scope: string | null, origin: string): Promise<Record<string, unknown>> {
    const scopes = parseScopeString(scope ?? '');
    if (scopes.length === 0) throw OAuthErrors.invalidScope('No scope was requested');
    const bad = forbiddenScope(scopes, client.application.approved_scopes ?? '');
    if (bad) throw OAuthErrors.invalidScope(`The scope ${bad} is not valid for this application`);
    const deviceCode = newSecret();
    const now = Date.now();
    const userCode = await this.tx(async (tx) => {
      for (let attempt = 0; ; attempt++) {
        const code = userCodeString();
        if (await this.store.oauth.findUserCode(tx, code)) {
          if (attempt > 5) throw new Error('could not allocate a user code');
          continue;
        }
        await this.store.oauth.insertDeviceCode(tx, deviceCode, {
          user_code: code,
          application_id: client.application.id,
          scopes: scopes.join(' '),
          user_id: null,
          status: 'pending',
          interval_s: this.options.deviceIntervalSeconds,
          last_poll_at: null,
          expires_at: now + this.options.deviceCodeTtlSeconds * 1000,
          created_at: now,
        });
        return code;
      }
    });
    return {
      device_code: deviceCode,
      user_code: userCode,
      verification_uri: `${origin}/activate`,
      verification_uri_complete: `${origin}/activate?user_code=${encodeURIComponent(userCode)}`,
      expires_in: this.options.deviceCodeTtlSeconds,
      interval: this.options.deviceIntervalSeconds,
    };
  }

  /** The pending device request behind a user code, for the activate page. */
  async deviceRequest(userCode: string): Promise<{ application: ApplicationsTable; scopes: string[]; userCode: string } | undefined> {
    const normalized = normalizeUserCode(userCode);
    if (!normalized) return undefined;
    const row = await this.store.oauth.findUserCode(this.store.database.db, normalized);
    if (!row || row.status !== 'pending' || toMs(row.expires_at)! <= Date.now()) return undefined;
    const application = await this.store.applications.get(row.application_id);
    return application && { application, scopes: row.scopes.split(' '), userCode: normalized };
  }

  async deviceDecision(userCode: string, user: UsersTable, allow: boolean): Promise<boolean> {
    const request = await this.deviceRequest(userCode);
    if (!request) return false;
    return this.tx(async (tx) => {
      const row = (await this.store.oauth.findUserCode(tx, request.userCode))!;
      const ok = await this.store.oauth.updateDeviceCode(tx, row.device_code_hash, { status: allow ? 'approved' : 'denied', user_id: user.id }, 'pending');
      if (ok && allow) {
        const { created } = await this.store.oauth.grant(tx, row.application_id, user.id, request.scopes);
        if (created) await this.store.webhookEvents.record(tx, row.application_id, 'APPLICATION_AUTHORIZED', { user: userToWire(user), scopes: request.scopes });
      }
      return ok;
    });
  }
}

/** Eight letters from an alphabet without look-alikes, shown as XXXX-XXXX (RFC 8628 6.1). */
const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
function userCodeString(): string {
  let s = '';
  for (let i = 0; i < 8; i++) s += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return `${s.slice(0, 4)}-${s.slice(4)}`;
}

export function normalizeUserCode(input: string): string | undefined {
  const letters = input.toUpperCase().replace(/[^A-Z]/g, '');
  if (letters.length !== 8 || [...letters].some((c) => !USER_CODE_ALPHABET.includes(c))) return undefined;
  return `${letters.slice(0, 4)}-${letters.slice(4)}`;
}

