import { newSecret } from '../auth/secrets.ts';
import { ApiError } from '../errors/ApiError.ts';
import { isValidChallenge } from '../oauth2/pkce.ts';
import { forbiddenScope } from '../oauth2/scopes.ts';
import type { Store } from '../storage/Store.ts';
import { userToWire } from '../storage/UserRepo.ts';
import type { ActivityService } from './ActivityService.ts';

/** How long an activity's authorization code lives (as the provider's other codes: short). */
const CODE_TTL_MS = 10 * 60_000;

export interface ActivityAuthorizeInput {
  scope: string[];
  code_challenge?: string;
  code_challenge_method?: string;
  state?: string;
  prompt?: string;
  /** The user agreed in the web app's consent dialog just now. */
  consent: boolean;
}

export const AuthorizeErrors = {
  // The web app shows its consent dialog on this one, then asks again with consent.
  consentRequired: () => new ApiError(403, 0, 'The user has not granted these scopes to this application'),
  invalid: (message: string) => new ApiError(400, 50035, message),
};

/**
 * AUTHORIZE from an activity (issue 17): the embedded app asks the host for an OAuth2 code without
 * a redirect (the public flow: the code goes back over postMessage, the activity's backend
 * exchanges it at /oauth2/token with its secret, no redirect_uri). Only a participant of one of
 * the application's instances gets one; without consent given now, only scopes granted before
 * (what `prompt: none` means). The grant and a first APPLICATION_AUTHORIZED event are recorded
 * as the consent page records them.
 */
export async function authorizeActivity(store: Store, activities: ActivityService, applicationId: string, instanceId: string, userId: string, input: ActivityAuthorizeInput): Promise<{ code: string }> {
  const instance = await activities.instance(applicationId, instanceId);
  if (!instance.users.includes(userId)) throw new ApiError(403, 50001, 'Missing Access');
  const application = await store.applications.get(applicationId);
  if (!application) throw new ApiError(404, 10002, 'Unknown Application');
  const scopes = [...new Set(input.scope)];
  if (scopes.length === 0) throw AuthorizeErrors.invalid('No scope was requested');
  const bad = forbiddenScope(scopes, application.approved_scopes ?? '');
  if (bad) throw AuthorizeErrors.invalid(`The scope ${bad} is not valid for this application`);
  if (input.code_challenge !== undefined || input.code_challenge_method !== undefined) {
    if (input.code_challenge_method !== 'S256' || !input.code_challenge || !isValidChallenge(input.code_challenge)) throw AuthorizeErrors.invalid('code_challenge must be S256 and 43 characters of base64url');
  }
  const user = await store.users.get(userId);
  if (!user) throw new ApiError(404, 10013, 'Unknown User');
  const db = store.database.db;
  const existing = await store.oauth.authorization(db, applicationId, userId);
  const have = new Set(existing?.scopes.split(' ') ?? []);
  const granted = scopes.every((s) => have.has(s));
  // prompt none only skips the dialog when everything was granted before; otherwise the user is asked, as on the public client.
  if (!granted && !input.consent) throw AuthorizeErrors.consentRequired();
  const code = newSecret();
  await db.transaction().execute(async (tx) => {
    const { created } = await store.oauth.grant(tx, applicationId, userId, scopes);
    await store.oauth.insertCode(tx, code, { application_id: applicationId, user_id: userId, redirect_uri: null, scopes: scopes.join(' '), code_challenge: input.code_challenge ?? null, nonce: null, expires_at: Date.now() + CODE_TTL_MS });
    if (created) await store.webhookEvents.record(tx, applicationId, 'APPLICATION_AUTHORIZED', { integration_type: 1, user: userToWire(user), scopes });
  });
  return { code };
}
