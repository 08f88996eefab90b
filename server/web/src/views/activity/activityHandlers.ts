import { ApiRequestError } from '../../api/RestClient.ts';
import type { SessionUser } from '../../api/session.ts';
import { onCheckoutRequest, onPurchase, openCheckout } from '../store/checkout.ts';
import { storeApi } from '../store/storeApi.ts';
import type { Entitlement, Sku } from '../store/storeModel.ts';
import { activityApi, type ActivityLaunch, placeQuery, withActivityToken } from './activityApi.ts';
import { type CommandHandler, HostError, RpcError, stringArg } from './sdkHost.ts';
import { presenceBody, sdkParticipant } from './sdkEvents.ts';

/** What the handlers ask of the page: dialogs the user answers, and the events to send. */
export interface HostUi {
  /** The consent dialog: resolves true when the user allows. */
  consent(scopes: string[]): Promise<boolean>;
  /** The share dialog showing the link; resolves whether it was copied. */
  share(url: string, message: string): Promise<boolean>;
  /** Leaving the app for an external link: resolves true when the user confirms. */
  confirmLink(url: string): Promise<boolean>;
  dispatch(evt: string, data: unknown): void;
  log(level: string, message: string): void;
}

export interface HostContext {
  applicationId: string;
  me: SessionUser;
  launch: () => ActivityLaunch;
  /** Rereads the instance (joining again is a no-op) for the participant commands. */
  refresh(): Promise<ActivityLaunch>;
  ui: HostUi;
  /** AUTHENTICATE succeeded: the token and scopes the page's event sources use (RELATIONSHIP_UPDATE). */
  onAuthenticated?(auth: { token: string; scopes: string[] }): void;
}

const participant = sdkParticipant;

/** Our SKU and entitlement records in the SDK's shapes (schema/common.ts Sku, Entitlement). */
const skuForSdk = (s: Sku) => ({ id: s.id, name: s.name, type: s.type, price: { amount: s.price, currency: 'usd' }, application_id: s.application_id, flags: s.flags, release_date: null });
const entitlementForSdk = (e: Entitlement) => ({
  id: e.id,
  sku_id: e.sku_id,
  application_id: e.application_id,
  user_id: e.user_id ?? '',
  gift_code_flags: 0,
  type: e.type,
  starts_at: e.starts_at ?? null,
  ends_at: e.ends_at ?? null,
  consumed: e.consumed ?? null,
  deleted: e.deleted ?? null,
});

const SCOPE = /^[a-z0-9._]{1,64}$/;

/**
 * The commands this host answers (issue 17). Each checks its arguments (HostError with the SDK's
 * codes); AUTHORIZE asks the server for a code and shows the consent dialog when it must;
 * AUTHENTICATE checks the token belongs to this application and user; GET_RELATIONSHIPS goes out
 * with that token, so the server applies its relationships.read scope.
 */
export function activityHandlers(h: HostContext): Record<string, CommandHandler> {
  let authenticated: { token: string; scopes: string[] } | null = null;
  const app = h.applicationId;
  return {
    async AUTHORIZE(args) {
      if (args.client_id !== app) throw new HostError(RpcError.INVALID_CLIENTID, 'Invalid client ID');
      const scope = args.scope;
      if (!Array.isArray(scope) || scope.length === 0 || scope.length > 32 || !scope.every((s) => typeof s === 'string' && SCOPE.test(s))) throw new HostError(RpcError.INVALID_PAYLOAD, 'scope must be a list of scopes');
      if (args.response_type !== undefined && args.response_type !== 'code') throw new HostError(RpcError.INVALID_PAYLOAD, 'response_type must be code');
      const body: Record<string, unknown> = { scope };
      const challenge = stringArg(args, 'code_challenge', 128, false);
      if (challenge) body.code_challenge = challenge;
      const method = stringArg(args, 'code_challenge_method', 16, false);
      if (method) body.code_challenge_method = method;
      const instanceId = h.launch().instance.instance_id;
      try {
        return await activityApi.authorize(app, instanceId, body);
      } catch (e) {
        if (!(e instanceof ApiRequestError) || e.status !== 403 || e.code !== 0) throw new HostError(RpcError.OAUTH2_ERROR, e instanceof Error ? e.message : 'Authorization failed');
      }
      if (!(await h.ui.consent(scope as string[]))) throw new HostError(RpcError.OAUTH2_ERROR, 'The user cancelled the authorization');
      try {
        return await activityApi.authorize(app, instanceId, { ...body, consent: true });
      } catch (e) {
        throw new HostError(RpcError.OAUTH2_ERROR, e instanceof Error ? e.message : 'Authorization failed');
      }
    },
    async AUTHENTICATE(args) {
      const token = stringArg(args, 'access_token', 512)!;
      type Info = { application: { id: string; name: string; description?: string; icon?: string | null }; scopes: string[]; expires: string; user?: { id: string; username: string; global_name: string | null; avatar: string | null; public_flags?: number } };
      let info: Info;
      try {
        info = await withActivityToken<Info>(token, '/oauth2/@me');
      } catch {
        throw new HostError(RpcError.INVALID_TOKEN, 'Invalid token');
      }
      if (info.application.id !== app || !info.user || info.user.id !== h.me.id) throw new HostError(RpcError.INVALID_TOKEN, 'The token is not this user\'s for this application');
      authenticated = { token, scopes: info.scopes };
      h.onAuthenticated?.(authenticated);
      const u = info.user;
      return {
        access_token: token,
        user: { id: u.id, username: u.username, discriminator: '0', global_name: u.global_name, ...(u.avatar ? { avatar: u.avatar } : {}), public_flags: u.public_flags ?? 0 },
        scopes: info.scopes,
        expires: info.expires,
        application: { id: app, name: info.application.name, description: info.application.description ?? '', ...(info.application.icon ? { icon: info.application.icon } : {}) },
      };
    },
    async GET_RELATIONSHIPS() {
      if (!authenticated || !authenticated.scopes.includes('relationships.read')) throw new HostError(RpcError.INVALID_PERMISSIONS, 'GET_RELATIONSHIPS needs AUTHENTICATE with the relationships.read scope');
      const list = await withActivityToken<{ type: number; user: { id: string; username: string; global_name: string | null; avatar: string | null } }[]>(authenticated.token, '/users/@me/relationships');
      return { relationships: list.map((r) => ({ type: r.type, user: participant(r.user) })) };
    },
    async GET_CHANNEL(args) {
      const id = stringArg(args, 'channel_id', 20)!;
      let c: Record<string, unknown>;
      try {
        c = await activityApi.channel(id);
      } catch {
        throw new HostError(RpcError.INVALID_CHANNEL, 'Invalid channel');
      }
      return { id: c.id, type: c.type, guild_id: c.guild_id ?? null, name: c.name ?? null, topic: c.topic ?? null, bitrate: c.bitrate ?? null, user_limit: c.user_limit ?? null, position: c.position ?? null, voice_states: [], messages: [] };
    },
    async GET_SKUS_EMBEDDED() {
      return { skus: (await storeApi.skus(app)).map(skuForSdk) };
    },
    async GET_ENTITLEMENTS_EMBEDDED() {
      return { entitlements: (await storeApi.myEntitlements(app)).map(entitlementForSdk) };
    },
    GET_SKUS: () => null,
    GET_ENTITLEMENTS: () => null,
    START_PURCHASE(args) {
      const skuId = stringArg(args, 'sku_id', 20)!;
      // The commerce issue's checkout over the activity; resolves with what was bought, or null when closed.
      return new Promise((resolve) => {
        let opened = false;
        const offOpen = onCheckoutRequest((open) => {
          if (open === skuId) opened = true;
          else if (open === null && opened) finish(null);
        });
        const offBuy = onPurchase((r) => {
          if (r.entitlement.sku_id !== skuId) return;
          const ent = entitlementForSdk(r.entitlement);
          h.ui.dispatch('ENTITLEMENT_CREATE', { entitlement: ent });
          finish([ent]);
        });
        const finish = (value: unknown) => {
          offOpen();
          offBuy();
          resolve(value);
        };
        openCheckout(skuId);
      });
    },
    async SHARE_LINK(args) {
      const message = stringArg(args, 'message', 1000)!;
      const customId = stringArg(args, 'custom_id', 64, false);
      stringArg(args, 'link_id', 64, false);
      // referrer_id was removed from the public command: passing it is silently ignored.
      const q = new URLSearchParams({ ...placeQuery(h.launch().instance.location), ...(customId ? { custom_id: customId } : {}) });
      const url = `${location.origin}/app/activity/${app}?${q}`;
      const copied = await h.ui.share(url, message);
      return { success: true, didCopyLink: copied, didSendMessage: false };
    },
    async OPEN_EXTERNAL_LINK(args) {
      const url = stringArg(args, 'url', 2048)!;
      if (!/^https?:\/\//i.test(url)) throw new HostError(RpcError.INVALID_PAYLOAD, 'Only http(s) links open');
      if (!(await h.ui.confirmLink(url))) return { opened: false };
      window.open(url, '_blank', 'noopener,noreferrer');
      return { opened: true };
    },
    USER_SETTINGS_GET_LOCALE: () => ({ locale: navigator.language || 'en-US' }),
    async GET_CHANNEL_PERMISSIONS() {
      return { permissions: (await h.refresh()).permissions };
    },
    async OPEN_INVITE_DIALOG() {
      const q = new URLSearchParams(placeQuery(h.launch().instance.location));
      await h.ui.share(`${location.origin}/app/activity/${app}?${q}`, '');
      return null;
    },
    async GET_ACTIVITY_INSTANCE_CONNECTED_PARTICIPANTS() {
      return { participants: (await h.refresh()).participants.map(participant) };
    },
    async SET_ACTIVITY(args) {
      const a = args.activity;
      if (a !== null && (typeof a !== 'object' || Array.isArray(a))) throw new HostError(RpcError.INVALID_PAYLOAD, 'activity must be an object or null');
      const type = (a as { type?: unknown } | null)?.type ?? 0;
      if (![0, 2, 3, 5].includes(type as number)) throw new HostError(RpcError.INVALID_PAYLOAD, 'activity.type must be 0, 2, 3 or 5');
      const instanceId = h.launch().instance.instance_id;
      // Published as the user's rich presence in this application until the activity closes; null clears it.
      if (a === null) {
        await activityApi.clearPresence(app, instanceId).catch(() => {});
        return { name: (await activityApi.application(app)).name, type: 0, application_id: app };
      }
      try {
        return await activityApi.setPresence(app, instanceId, presenceBody(a as Record<string, unknown>));
      } catch (e) {
        throw new HostError(RpcError.INVALID_PAYLOAD, e instanceof Error ? e.message : 'The activity was refused');
      }
    },
    CAPTURE_LOG(args) {
      const level = stringArg(args, 'level', 16)!;
      h.ui.log(level, stringArg(args, 'message', 4000) ?? '');
      return null;
    },
    SET_ORIENTATION_LOCK_STATE: () => null,
    SET_CONFIG: (args) => ({ use_interactive_pip: args.use_interactive_pip === true }),
    ENCOURAGE_HW_ACCELERATION: () => ({ enabled: true }),
    GET_PLATFORM_BEHAVIORS: () => ({}),
  };
}
