// The web app's host side of the embedded-app SDK (issue 17, server/web/src/views/activity/
// sdkHost.ts) against the unmodified public @discord/embedded-app-sdk 2.x: the SDK runs in Node
// over a minimal window (location, message listeners, parent, referrer) and every frame goes
// through structuredClone, as postMessage does. The SDK's own zod schemas check our READY,
// responses, events and error frames. Then bad input: other origins and windows, frames before
// the handshake, malformed and oversized frames, unknown commands and events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloseCode, EmbeddedAppHost, HostError, type MessageLike, RpcError, stringArg } from '../web/src/views/activity/sdkHost.ts';
import { type GatewayVoiceState, LAYOUT_FOCUSED, presenceBody, sdkOrientation, sdkParticipant, sdkRelationship, sdkUser, sdkVoiceState } from '../web/src/views/activity/sdkEvents.ts';
import { watchRelationships } from '../web/src/views/activity/relationshipEvents.ts';

const APP_ID = '1234567890123456789';
const ACTIVITY_ORIGIN = `https://${APP_ID}.activities.example`;
/** The host frame the SDK talks to is the bridge on the activity's own origin (see the README). */
const HOST_ORIGIN = ACTIVITY_ORIGIN;

const activityListeners: ((e: MessageLike) => void)[] = [];
const activityWindow = { name: 'activity' };
const hostWindow = {
  name: 'host',
  postMessage(message: unknown, _origin: string) {
    const data = structuredClone(message);
    setTimeout(() => host?.handleMessage({ origin: ACTIVITY_ORIGIN, source: activityWindow, data }));
  },
};
/** Delivers a message to the activity as if sent by `source` from `origin`. */
function toActivity(message: unknown, origin = HOST_ORIGIN, source: unknown = hostWindow) {
  const data = structuredClone(message);
  setTimeout(() => activityListeners.forEach((l) => l({ origin, source, data })));
}
const sentToActivity: unknown[] = [];
let host: EmbeddedAppHost | undefined;
let sdk: any;
const logs: unknown[] = [];
const authorizeCalls: unknown[] = [];

beforeAll(async () => {
  (globalThis as any).window = {
    location: { origin: ACTIVITY_ORIGIN, search: `?frame_id=frame-1&instance_id=i-1&platform=desktop&guild_id=111&channel_id=222&location_id=gc-111-222&custom_id=from-link` },
    addEventListener: (type: string, fn: (e: MessageLike) => void) => type === 'message' && activityListeners.push(fn),
    removeEventListener: () => {},
    parent: hostWindow,
  };
  (globalThis as any).document = { referrer: `${HOST_ORIGIN}/.platform/activity-host` };
  host = new EmbeddedAppHost({
    applicationId: APP_ID,
    frameId: 'frame-1',
    source: activityWindow,
    origin: ACTIVITY_ORIGIN,
    target: {
      postMessage(message, origin) {
        expect(origin).toBe(ACTIVITY_ORIGIN);
        sentToActivity.push(message);
        toActivity(message);
      },
    },
    ready: () => ({ v: 1, config: { cdn_host: 'cdn.example', api_endpoint: '//platform.example/api', environment: 'production' }, user: { id: '42', username: 'ada', discriminator: '0' } }),
    handlers: {
      AUTHORIZE: (args) => {
        authorizeCalls.push(args);
        if (args.client_id !== APP_ID) throw new HostError(RpcError.INVALID_CLIENTID, 'Invalid client ID');
        return { code: 'the-code' };
      },
      AUTHENTICATE: (args) => ({ access_token: stringArg(args, 'access_token', 200), user: { id: '42', username: 'ada', discriminator: '0', avatar: null, public_flags: 0, global_name: 'Ada' }, scopes: ['identify', 'relationships.read'], expires: new Date(Date.now() + 3600_000).toISOString(), application: { id: APP_ID, name: 'Lobby', description: '', icon: null } }),
      GET_SKUS_EMBEDDED: () => ({ skus: [{ id: '9', name: 'Gold', type: 3, price: { amount: 199, currency: 'usd' }, application_id: APP_ID, flags: 0, release_date: null }] }),
      GET_ENTITLEMENTS_EMBEDDED: () => ({ entitlements: [] }),
      START_PURCHASE: (args) => [{ id: '77', sku_id: stringArg(args, 'sku_id', 20), application_id: APP_ID, user_id: '42', gift_code_flags: 0, type: 4 }],
      SHARE_LINK: (args) => {
        stringArg(args, 'message', 1000);
        stringArg(args, 'custom_id', 64, false);
        return { success: true, didCopyLink: true, didSendMessage: false };
      },
      GET_RELATIONSHIPS: () => ({ relationships: [{ type: 1, user: { id: '7', username: 'bo', global_name: 'Bo', discriminator: '0', avatar: null, flags: 0, bot: false } }] }),
      GET_CHANNEL: (args) => ({ id: stringArg(args, 'channel_id', 20), type: 2, guild_id: '111', name: 'General', voice_states: [], messages: [] }),
      USER_SETTINGS_GET_LOCALE: () => ({ locale: 'en-US' }),
      CAPTURE_LOG: (args) => {
        logs.push(args);
        return null;
      },
      GET_ACTIVITY_INSTANCE_CONNECTED_PARTICIPANTS: () => ({ participants: [{ id: '42', username: 'ada', discriminator: '0', flags: 0, bot: false }] }),
      SET_ACTIVITY: (args) => ({ name: 'Lobby', type: 0, ...(args.activity as object) }),
      OPEN_EXTERNAL_LINK: () => ({ opened: false }),
    },
  });
  const mod = await import('@discord/embedded-app-sdk');
  sdk = new mod.DiscordSDK(APP_ID);
});
afterAll(() => {
  delete (globalThis as any).window;
  delete (globalThis as any).document;
});

describe('embedded-app SDK host against @discord/embedded-app-sdk', () => {
  // READY's user.avatar must be a string or absent (the SDK's schema refuses null): the host omits it.
  it('handshake: the SDK sends HANDSHAKE with client and frame ID; READY resolves ready()', async () => {
    await sdk.ready();
    expect(sdk.instanceId).toBe('i-1');
    expect(sdk.customId).toBe('from-link');
    expect(sdk.channelId).toBe('222');
    expect(host!.ready).toBe(true);
  });

  it('commands round-trip with the SDK parsing our responses', async () => {
    expect(await sdk.commands.authorize({ client_id: APP_ID, response_type: 'code', state: '', prompt: 'none', scope: ['identify', 'relationships.read'] })).toEqual({ code: 'the-code' });
    expect(authorizeCalls.at(-1)).toMatchObject({ client_id: APP_ID, scope: ['identify', 'relationships.read'], prompt: 'none' });
    const auth = await sdk.commands.authenticate({ access_token: 'tok' });
    expect(auth.user.id).toBe('42');
    expect(auth.scopes).toEqual(['identify', 'relationships.read']);
    expect((await sdk.commands.getSkus()).skus[0]).toMatchObject({ id: '9', name: 'Gold', price: { amount: 199, currency: 'usd' } });
    expect((await sdk.commands.getEntitlements()).entitlements).toEqual([]);
    expect((await sdk.commands.startPurchase({ sku_id: '9' }))![0]).toMatchObject({ sku_id: '9', type: 4 });
    expect(await sdk.commands.shareLink({ message: 'Join me', custom_id: 'room-7', referrer_id: 'ignored' } as never)).toEqual({ success: true, didCopyLink: true, didSendMessage: false });
    expect((await sdk.commands.getRelationships()).relationships[0].user.id).toBe('7');
    expect((await sdk.commands.getChannel({ channel_id: '222' })).name).toBe('General');
    expect(await sdk.commands.userSettingsGetLocale()).toEqual({ locale: 'en-US' });
    expect((await sdk.commands.getInstanceConnectedParticipants()).participants).toHaveLength(1);
    expect(await sdk.commands.openExternalLink({ url: 'https://example.com' })).toEqual({ opened: false });
  });

  it('errors: a handler refusal reaches the SDK as a rejected promise with the code', async () => {
    await expect(sdk.commands.authorize({ client_id: '1', response_type: 'code', state: '', prompt: 'none', scope: ['identify'] })).rejects.toMatchObject({ code: RpcError.INVALID_CLIENTID });
    await expect(sdk.commands.shareLink({ message: 'x'.repeat(1001) } as never)).rejects.toBeDefined();
    // A command this host does not implement: the documented error frame.
    await expect(sdk.commands.getQuest({ quest_id: '1' } as never)).rejects.toMatchObject({ code: RpcError.INVALID_COMMAND });
  });

  it('events: SUBSCRIBE answers {evt}; dispatches reach the SDK listener only while subscribed', async () => {
    const got: unknown[] = [];
    const listener = (e: unknown) => got.push(e);
    await sdk.subscribe('ENTITLEMENT_CREATE', listener);
    expect(host!.subscriptions.has('ENTITLEMENT_CREATE')).toBe(true);
    expect(host!.dispatch('ENTITLEMENT_CREATE', { entitlement: { id: '78', sku_id: '9', application_id: APP_ID, user_id: '42', gift_code_flags: 0, type: 4 } })).toBe(true);
    await expect.poll(() => got.length).toBe(1);
    expect(got[0]).toMatchObject({ entitlement: { id: '78' } });
    await sdk.unsubscribe('ENTITLEMENT_CREATE', listener);
    expect(host!.dispatch('ENTITLEMENT_CREATE', { entitlement: {} })).toBe(false);
    // An event the host does not have: INVALID_EVENT.
    await expect(sdk.subscribe('THERMAL_STATE_UPDATE', () => {})).rejects.toMatchObject({ code: RpcError.INVALID_EVENT });
  });

  it('the events the web app sends (sdkEvents.ts) pass the SDK\'s own event schemas and reach its listeners', async () => {
    const { EventSchema } = await import('../../node_modules/@discord/embedded-app-sdk/output/schema/events.mjs' as string);
    const frame = (evt: string, data: unknown) => ({ cmd: 'DISPATCH', evt, nonce: null, data });
    const ada = { id: '42', username: 'ada', global_name: 'Ada', avatar: null };
    const vs: GatewayVoiceState = { guild_id: '111', channel_id: '222', user_id: '42', mute: false, deaf: false, self_mute: true, self_deaf: false, suppress: false, member: { nick: 'Countess', user: ada } };
    const cases: [string, unknown, Record<string, unknown>?][] = [
      ['VOICE_STATE_UPDATE', sdkVoiceState(vs, ada), { channel_id: '222' }],
      ['CURRENT_USER_UPDATE', sdkUser(ada)],
      ['ACTIVITY_INSTANCE_PARTICIPANTS_UPDATE', { participants: [sdkParticipant(ada), sdkParticipant({ id: '43', username: 'bob', avatar: 'abc' })] }],
      ['ACTIVITY_LAYOUT_MODE_UPDATE', LAYOUT_FOCUSED],
      ['RELATIONSHIP_UPDATE', sdkRelationship(1, ada)],
      ['RELATIONSHIP_UPDATE', sdkRelationship(0, { id: '43', username: 'bob', avatar: 'abc' })],
      ['ORIENTATION_UPDATE', sdkOrientation(true)],
      ['ORIENTATION_UPDATE', sdkOrientation(false)],
    ];
    for (const [evt, data, args] of cases) {
      expect(() => EventSchema[evt].payload.parse(frame(evt, data)), evt).not.toThrow();
      const got: unknown[] = [];
      const listener = (e: unknown) => got.push(e);
      await sdk.subscribe(evt, listener, args);
      expect(host!.dispatch(evt, data)).toBe(true);
      await expect.poll(() => got.length, { timeout: 2000 }).toBe(1);
      await sdk.unsubscribe(evt, listener, args);
    }
    expect(sdkVoiceState(vs, ada)).toMatchObject({ nick: 'Countess', user: { id: '42', avatar_decoration_data: null }, voice_state: { self_mute: true, mute: false }, volume: 100 });
    // What the host sent before this: a User without avatar_decoration_data fails the SDK's parse
    // (the listener never hears it).
    expect(() => EventSchema.CURRENT_USER_UPDATE.payload.parse(frame('CURRENT_USER_UPDATE', { id: '42', username: 'ada', discriminator: '0', global_name: 'Ada', flags: 0, bot: false }))).toThrow();
    // SET_ACTIVITY's activity as the platform's rich presence: the fields both know, no nulls.
    expect(presenceBody({ type: 0, state: 'In a match', details: null, instance: true, timestamps: { start: 5, end: null }, assets: { large_image: 'map', large_text: null }, party: { id: 'p', size: [1, 4] }, secrets: { match: 'm' } })).toEqual({
      type: 0,
      state: 'In a match',
      timestamps: { start: 5 },
      assets: { large_image: 'map' },
      party: { id: 'p', size: [1, 4] },
    });
  });

  it('RELATIONSHIP_UPDATE: each Gateway RELATIONSHIP_* rereads the list with the activity token (relationships.read, subscribed only)', async () => {
    const listeners = new Set<(event: string, data: unknown) => void>();
    const gateway = (event: string, data: unknown) => listeners.forEach((l) => l(event, data));
    let auth: { token: string; scopes: string[] } | null = null;
    let subscribed = true;
    let rows: { type: number; user: { id: string; username: string } }[] = [];
    const reads: string[] = [];
    const sent: unknown[] = [];
    const stop = watchRelationships({
      auth: () => auth,
      subscribed: () => subscribed,
      dispatch: (d) => sent.push(d),
      on: (l) => (listeners.add(l), () => void listeners.delete(l)),
      list: async (token) => (reads.push(token), rows),
      user: async (id) => ({ id, username: `user${id}` }),
    });
    const bo = { id: '7', username: 'bo', global_name: 'Bo', avatar: null };
    // Before AUTHENTICATE, or without relationships.read: nothing is read or sent.
    gateway('RELATIONSHIP_ADD', { id: '7', type: 3, user: bo });
    auth = { token: 'tok-identify', scopes: ['identify'] };
    gateway('RELATIONSHIP_ADD', { id: '7', type: 3, user: bo });
    auth = { token: 'tok', scopes: ['identify', 'relationships.read'] };
    rows = [{ type: 1, user: bo }];
    gateway('RELATIONSHIP_UPDATE', { id: '7', type: 1, user: bo });
    gateway('MESSAGE_CREATE', { id: '7' });
    await expect.poll(() => sent.length, { timeout: 2000 }).toBe(1);
    expect(reads).toEqual(['tok']);
    expect(sent[0]).toEqual(sdkRelationship(1, bo));
    // Removed: the list no longer has them; the user seen before is named with type 0.
    rows = [];
    gateway('RELATIONSHIP_REMOVE', { id: '7' });
    await expect.poll(() => sent.length, { timeout: 2000 }).toBe(2);
    expect(sent[1]).toEqual({ type: 0, user: expect.objectContaining({ id: '7', username: 'bo' }) });
    // Someone never seen: looked up by id.
    gateway('RELATIONSHIP_REMOVE', { id: '9' });
    await expect.poll(() => sent.length, { timeout: 2000 }).toBe(3);
    expect(sent[2]).toEqual({ type: 0, user: expect.objectContaining({ id: '9', username: 'user9' }) });
    // Not subscribed: nothing; stopped: no listener left.
    subscribed = false;
    gateway('RELATIONSHIP_ADD', { id: '7', type: 1, user: bo });
    stop();
    expect(listeners.size).toBe(0);
    await new Promise((r) => setTimeout(r, 50));
    expect(sent).toHaveLength(3);
  });

  it('console output after READY arrives as CAPTURE_LOG', async () => {
    console.warn('from the activity');
    await expect.poll(() => logs.some((l: any) => l.level === 'warn' && String(l.message).includes('from the activity'))).toBe(true);
  });
});

describe('bad input on the postMessage channel', () => {
  function fresh() {
    const out: unknown[] = [];
    const win = {};
    const h = new EmbeddedAppHost({ applicationId: APP_ID, frameId: 'f', source: win, origin: ACTIVITY_ORIGIN, target: { postMessage: (m) => out.push(m) }, ready: () => ({ v: 1 }), handlers: { ECHO: (a: unknown) => a } as never });
    const send = (data: unknown, origin = ACTIVITY_ORIGIN, source: unknown = win) => h.handleMessage({ origin, source, data });
    return { h, out, send, win };
  }
  const tick = () => new Promise((r) => setTimeout(r, 0));

  it('ignores other origins, other windows, malformed frames and commands before the handshake', async () => {
    const { h, out, send } = fresh();
    send([0, { v: 1, client_id: APP_ID, frame_id: 'f' }], 'https://evil.example');
    send([0, { v: 1, client_id: APP_ID, frame_id: 'f' }], ACTIVITY_ORIGIN, {});
    send([1, { cmd: 'ECHO', nonce: 'n', args: {} }]);
    expect(out).toEqual([]);
    expect(h.ready).toBe(false);
    for (const junk of ['text', null, 42, {}, [], [9, {}], ['0', {}], [1], [1, { cmd: 1, nonce: 'n' }], [1, { cmd: 'ECHO' }]]) send(junk);
    send([0, { v: 1, client_id: APP_ID, frame_id: 'f' }]);
    expect(out).toEqual([[1, { cmd: 'DISPATCH', evt: 'READY', nonce: null, data: { v: 1 } }]]);
    for (const junk of ['text', null, 42, {}, [], [9, {}], [1], [1, { cmd: 1, nonce: 'n' }], [1, { cmd: 'ECHO' }], [1, { cmd: 'ECHO', nonce: 'x'.repeat(65) }]]) send(junk);
    await tick();
    expect(out).toHaveLength(1);
  });

  it('answers unknown commands, oversized frames and bad args with the error frame', async () => {
    const { out, send } = fresh();
    send([0, { v: 1, client_id: APP_ID, frame_id: 'f' }]);
    send([1, { cmd: 'NOT_A_COMMAND', nonce: 'a', args: {} }]);
    send([1, { cmd: 'ECHO', nonce: 'b', args: { blob: 'x'.repeat(70_000) } }]);
    send([1, { cmd: 'ECHO', nonce: 'c', args: 'no' }]);
    send([1, { cmd: 'SUBSCRIBE', nonce: 'd', evt: 'NOPE', args: {} }]);
    send([1, { cmd: 'hasOwnProperty', nonce: 'e', args: {} }]);
    send([1, { cmd: 'ECHO', nonce: 'f', args: { ok: true } }]);
    await tick();
    expect(out.slice(1)).toEqual([
      [1, { cmd: 'NOT_A_COMMAND', evt: 'ERROR', nonce: 'a', data: { code: 4002, message: 'Invalid command: NOT_A_COMMAND' } }],
      [1, { cmd: 'ECHO', evt: 'ERROR', nonce: 'b', data: { code: 4000, message: expect.stringContaining('larger') } }],
      [1, { cmd: 'ECHO', evt: 'ERROR', nonce: 'c', data: { code: 4000, message: 'args must be an object' } }],
      [1, { cmd: 'SUBSCRIBE', evt: 'ERROR', nonce: 'd', data: { code: 4004, message: 'Invalid event: NOPE' } }],
      [1, { cmd: 'hasOwnProperty', evt: 'ERROR', nonce: 'e', data: { code: 4002, message: 'Invalid command: hasOwnProperty' } }],
      [1, { cmd: 'ECHO', evt: null, nonce: 'f', data: { ok: true } }],
    ]);
  });

  it('refuses a handshake for another application or frame with the close codes, then stays closed', async () => {
    const { h, out, send } = fresh();
    send([0, { v: 1, client_id: '999', frame_id: 'f' }]);
    expect(out).toEqual([[2, { code: CloseCode.INVALID_CLIENTID, message: 'Invalid client ID' }]]);
    send([0, { v: 1, client_id: APP_ID, frame_id: 'f' }]);
    expect(out).toHaveLength(1);
    expect(h.ready).toBe(false);
    const other = fresh();
    other.send([0, { v: 1, client_id: APP_ID, frame_id: 'g' }]);
    expect(other.out[0]).toEqual([2, { code: CloseCode.INVALID_ORIGIN, message: 'Invalid frame ID' }]);
    const v2 = fresh();
    v2.send([0, { v: 2, client_id: APP_ID, frame_id: 'f' }]);
    expect(v2.out[0]).toEqual([2, { code: CloseCode.INVALID_VERSION, message: 'Unsupported version' }]);
  });
});
