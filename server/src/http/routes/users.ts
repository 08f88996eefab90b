import type { FastifyInstance } from 'fastify';
import { ApiErrorCode, Limits } from '@social-layer/protocol';
import { profilesFor } from '../../accounts/applicationProfiles.ts';
import type { ServerContext } from '../../ServerContext.ts';
import { publicUserWire, userToWire } from '../../storage/UserRepo.ts';
import { announceUserUpdate } from '../../accounts/userEvents.ts';
import { ApiError, Errors } from '../ApiError.ts';
import { authenticate, isFirstParty, requireBearer } from '../auth.ts';
import { BEARER, BEARER_OR_BOT, Nullable, Str, Type, type TypeBoxTypeProvider, UserSchema } from '../schemas/index.ts';

const TAGS = ['users'];
const PatchBody = Type.Object({
  global_name: Type.Optional(Nullable(Str(Limits.displayNameMinLength, Limits.displayNameMaxLength, { description: 'Display name; null clears it' }))),
});

/**
 * Fields the public current-user object requires (its OpenAPI document; conformance.test) that
 * this platform has nothing behind: no account flags, no multi-factor login, one locale.
 */
const CURRENT_USER_DEFAULTS = { public_flags: 0, flags: 0, mfa_enabled: false, locale: 'en-US' } as const;

export function userRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get(
    '/api/v10/users/@me',
    { schema: { summary: 'The current user (or the application\'s bot user)', tags: TAGS, security: BEARER_OR_BOT, response: { 200: UserSchema } }, config: { rateLimit: { bucket: 'users.me', limit: 60, windowMs: 10_000 } } },
    async (req) => {
      const p = await authenticate(req, ctx.store);
      const user = await ctx.store.users.get(p.kind === 'bot' ? p.botUserId : p.userId);
      if (!user) throw Errors.unknownUser();
      // The real premium_type only with identify.premium (spec, User premium_type); 0 otherwise.
      const premium = p.kind === 'bearer' && p.scopes.includes('identify.premium') ? (user.premium_type ?? 0) : 0;
      // Its own game profiles for the token's application (issue 19); a bot user has none.
      const application_profiles = p.kind === 'bearer' ? await profilesFor(ctx.store, p, user.id) : [];
      // The account's email only with the `email` scope, as publicly; `verified` is false because the
      // platform sends no confirmation mail, so no address here was ever confirmed.
      const email = p.kind === 'bearer' && p.scopes.includes('email') ? { email: (await ctx.store.accounts.get(user.id))?.email ?? null, verified: false } : {};
      return { ...userToWire(user), ...CURRENT_USER_DEFAULTS, premium_type: premium, ...email, application_profiles };
    },
  );

  // Get User: any user by ID, in the public User object's shape (bots, and the web app's profiles).
  r.get(
    '/api/v10/users/:user_id',
    {
      schema: {
        summary: 'Get User',
        tags: TAGS,
        security: BEARER_OR_BOT,
        params: Type.Object({ user_id: Type.String({ maxLength: 20 }) }),
        response: { 200: Type.Object({ id: Type.String() }, { title: 'User', additionalProperties: true }) },
      },
      config: { rateLimit: { bucket: 'users.get', limit: 50, windowMs: 1_000 } },
    },
    async (req) => {
      const p = await authenticate(req, ctx.store);
      // A client that percent-encodes the path (users/%40me) lands here: the caller.
      const id = req.params.user_id === '@me' ? (p.kind === 'bot' ? p.botUserId : p.userId) : req.params.user_id;
      const user = /^\d{1,20}$/.test(id) ? await ctx.store.users.get(id) : undefined;
      if (!user) throw Errors.unknownUser();
      return publicUserWire(user);
    },
  );

  /** Display-name updates (UpdateProvisionalAccountDisplayName); co-members see the new name. */
  r.patch(
    '/api/v10/users/@me',
    { schema: { summary: 'Change the display name', tags: TAGS, security: BEARER, body: PatchBody, response: { 200: UserSchema } }, config: { rateLimit: { bucket: 'users.me.write', limit: 10, windowMs: 10_000 } } },
    async (req) => {
      const p = requireBearer(await authenticate(req, ctx.store));
      const body = req.body;
      // A game names the provisional accounts it made (UpdateProvisionalAccountDisplayName); a
      // full account's name is the person's, changed on the platform.
      if (!(await isFirstParty(ctx.store, p.applicationId)) && (await ctx.store.users.get(p.userId))?.is_provisional !== 1) {
        throw new ApiError(400, ApiErrorCode.AccountNotProvisional, 'Only a provisional account\'s display name is set by a game');
      }
      if (body.global_name !== undefined) {
        await ctx.store.users.setGlobalName(p.userId, body.global_name);
        await ctx.lobbies.announceUserChange(p.applicationId, p.userId);
      }
      const user = userToWire((await ctx.store.users.get(p.userId))!);
      if (body.global_name !== undefined) announceUserUpdate(ctx.bus, user);
      return { ...user, ...CURRENT_USER_DEFAULTS };
    },
  );
}
