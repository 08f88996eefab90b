import { Limits } from '@social-layer/protocol';
import { forbiddenScope, KNOWN_SCOPES, parseScopeString, tokenScopes } from '../oauth2/scopes.ts';
import type { Store } from '../storage/Store.ts';
import { type CliCommand, CliUsageError, printJson, snowflakeOption } from './command.ts';
import { DATA_OPTIONS, DATA_USAGE, withStore } from './operatorStore.ts';

/**
 * Operator shortcuts to act as a user, for setting up a platform (and tests) without a browser:
 * with --app, an OAuth2 access token of that application for the user, as if the user had
 * consented to those scopes (the authorization is recorded, so it shows under the user's
 * connected games and Remove app revokes it); without --app, a session token of the platform's
 * own client, sent as `Authorization: <token>` with no scheme, like the web app's.
 */
export const tokensIssue: CliCommand = {
  words: ['tokens', 'issue'],
  usage: `tokens issue --user ID [--app ID --scopes "SCOPE ..."] ${DATA_USAGE}
      Operator shortcut to act as a user. With --app: an OAuth2 bearer token of that application
      for the user, printed as {access_token, token_type, scope, expires_in}. Without --app: a
      session token of the platform's own client, printed as {user_id, token}; send it as
      "Authorization: <token>" (no scheme). Both are valid for 7 days.`,
  options: { user: { type: 'string' }, app: { type: 'string' }, scopes: { type: 'string' }, ...DATA_OPTIONS },
  async run(values, io) {
    const userId = snowflakeOption(values, 'user');
    const appId = values.app === undefined ? undefined : snowflakeOption(values, 'app');
    if (appId === undefined && values.scopes !== undefined) throw new CliUsageError('--scopes needs --app (session tokens carry the first-party scopes)');
    const result = await withStore(values, async (store) => {
      const user = await store.users.get(userId);
      if (!user || user.is_bot === 1) throw new CliUsageError(`unknown user ${userId}`);
      return appId === undefined ? sessionToken(store, userId) : oauthToken(store, userId, appId, typeof values.scopes === 'string' ? values.scopes : '');
    });
    printJson(io, result);
    return 0;
  },
};

async function oauthToken(store: Store, userId: string, appId: string, scopeString: string) {
  const app = await store.applications.get(appId);
  if (!app || app.first_party === 1) throw new CliUsageError(`unknown application ${appId}`);
  const scopes = parseScopeString(scopeString.trim());
  if (scopes.length === 0) throw new CliUsageError('--scopes "SCOPE ..." is required with --app');
  const bad = forbiddenScope(scopes, app.approved_scopes ?? '');
  if (bad) throw new CliUsageError(`invalid scope for this application: ${bad}`);
  const token = await store.database.db.transaction().execute(async (tx) => {
    await store.oauth.grant(tx, app.id, userId, scopes);
    return store.tokens.issueIn(tx, userId, app.id, tokenScopes(scopes), Limits.accessTokenTtlSeconds);
  });
  return { access_token: token, token_type: 'Bearer', scope: scopes.join(' '), expires_in: Limits.accessTokenTtlSeconds };
}

async function sessionToken(store: Store, userId: string) {
  const client = await store.applications.firstParty();
  const token = await store.tokens.issue(userId, client.id, tokenScopes([...KNOWN_SCOPES]), Limits.accessTokenTtlSeconds);
  return { user_id: userId, token };
}
