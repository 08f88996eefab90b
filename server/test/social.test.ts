// Relationships, presence, invites and direct messages over the HTTP API and raw Gateway
// sockets, on SQLite and on PostgreSQL: each operation, the dispatches it causes, and the
// documented error for each kind of bad input, with proof that a refused request wrote nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, keepWebhookEvents, RawGateway, startTestServer, type TestServer } from './harness.ts';

interface Player {
  token: string;
  userId: string;
  gw?: RawGateway;
}

afterAll(async () => {
  await dropTestSchemas();
  cleanupTempDirs();
});

describe.each(databaseConfigs())('social on $name', ({ config }) => {
  let t: TestServer;
  const sockets: RawGateway[] = [];

  beforeAll(async () => {
    t = await startTestServer({ database: config(), presenceGraceMs: 0 });
    await keepWebhookEvents(t);
  });
  afterAll(async () => {
    for (const s of sockets) s.terminate();
    await t.close();
  });

  async function player(name: string, connect = true): Promise<Player> {
    const g = await t.guest(name);
    const p: Player = { token: g.token, userId: g.userId };
    if (connect) {
      p.gw = await RawGateway.open(t.server);
      sockets.push(p.gw);
      await p.gw.identify(g.token);
    }
    return p;
  }

  async function befriend(a: Player, b: Player): Promise<void> {
    expect((await t.req('PUT', `/users/@me/relationships/${b.userId}`, { token: a.token, body: {} })).status).toBe(204);
    expect((await t.req('PUT', `/users/@me/relationships/${a.userId}?type=3`, { token: b.token, body: {} })).status).toBe(204);
  }

  const relCount = () => t.server.store.relationships.countAll();
  const dmCount = () => t.server.store.directMessages.countAll();
  const inviteCount = () => t.server.store.invites.countAll();

  describe('relationships', () => {
    it('sends, accepts and lists platform and game friendships, with dispatches to both', async () => {
      const a = await player('Ann');
      const b = await player('Ben');
      const sent = await t.req('PUT', `/users/@me/relationships/${b.userId}`, { token: a.token, body: { type: 1 } });
      expect(sent.status).toBe(204);
      const add = await b.gw!.next((f) => f.t === 'RELATIONSHIP_ADD' && f.d.id === a.userId);
      expect(add.d).toMatchObject({ type: 3, game_type: 0, user: { id: a.userId, global_name: 'Ann' }, is_spam_request: false, has_played_game: true });
      await a.gw!.next((f) => f.t === 'RELATIONSHIP_ADD' && f.d.id === b.userId && f.d.type === 4);

      const accepted = await t.req('PUT', `/users/@me/relationships/${a.userId}?type=3`, { token: b.token });
      expect(accepted.status).toBe(204);
      await a.gw!.next((f) => f.t === 'RELATIONSHIP_UPDATE' && f.d.id === b.userId && f.d.type === 1);
      // New friends see each other's presence at once.
      const pres = await a.gw!.next((f) => f.t === 'PRESENCE_UPDATE' && f.d.user.id === b.userId);
      expect(pres.d.status).toBe('online');
      expect(pres.d.activities[0]).toMatchObject({ name: 'Test Game', type: 0, application_id: t.app.id });

      // A game friendship by username, alongside.
      const me = await t.req('GET', '/users/@me', { token: b.token });
      expect((await t.req('POST', '/users/@me/game-relationships', { token: a.token, body: { username: me.body.username.toUpperCase() } })).status).toBe(204);
      expect((await t.req('PUT', `/users/@me/game-relationships/${a.userId}?type=3`, { token: b.token })).status).toBe(204);
      const list = await t.req('GET', '/users/@me/relationships', { token: a.token });
      expect(list.body).toHaveLength(1);
      expect(list.body[0]).toMatchObject({ id: b.userId, type: 1, game_type: 1 });

      // RemoveDiscordAndGameFriend ends both; a second time there is nothing to remove.
      expect((await t.req('DELETE', `/users/@me/relationships/${b.userId}?with_game=true`, { token: a.token })).status).toBe(204);
      await b.gw!.next((f) => f.t === 'RELATIONSHIP_REMOVE' && f.d.id === a.userId);
      expect((await t.req('GET', '/users/@me/relationships', { token: b.token })).body).toEqual([]);
      const again = await t.req('DELETE', `/users/@me/relationships/${b.userId}?with_game=true`, { token: a.token });
      expect(again.body.code).toBe(80006);
    });

    it('rejects and cancels requests, and notes the rejection for the spam heuristic', async () => {
      const a = await player('Ada');
      const b = await player('Bo');
      await t.req('PUT', `/users/@me/relationships/${b.userId}`, { token: a.token });
      expect((await t.req('DELETE', `/users/@me/relationships/${a.userId}?type=3`, { token: b.token })).status).toBe(204);
      expect((await t.req('GET', '/users/@me/relationships', { token: a.token })).body).toEqual([]);
      // Asking again right after a "no" is marked as spam for the recipient.
      await t.req('PUT', `/users/@me/relationships/${b.userId}`, { token: a.token });
      const seen = await t.req('GET', '/users/@me/relationships', { token: b.token });
      expect(seen.body[0]).toMatchObject({ id: a.userId, type: 3, is_spam_request: true });
      expect((await t.req('DELETE', `/users/@me/relationships/${b.userId}?type=4`, { token: a.token })).status).toBe(204);
      expect((await t.req('GET', '/users/@me/relationships', { token: b.token })).body).toEqual([]);
    });

    it('marks a burst of requests as spam', async () => {
      const spammer = await player('Spam', false);
      const targets = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => player(`T${i}`, false)));
      for (const target of targets) await t.req('PUT', `/users/@me/relationships/${target.userId}`, { token: spammer.token });
      const flags = [];
      for (const target of targets) flags.push((await t.req('GET', '/users/@me/relationships', { token: target.token })).body[0].is_spam_request);
      expect(flags).toEqual([false, false, false, false, false, true]);
    });

    it('refuses bad requests with the documented codes and changes nothing', async () => {
      const a = await player('Al', false);
      const b = await player('Bea', false);
      await befriend(a, b);
      const c = await player('Cy', false);
      await t.req('PUT', `/users/@me/relationships/${c.userId}`, { token: a.token });
      const before = await relCount();
      const cases: [string, string, unknown, number, number][] = [
        ['PUT', `/users/@me/relationships/123456789012345678`, {}, 404, 10013],
        ['PUT', `/users/@me/relationships/not-an-id`, {}, 404, 10013],
        ['POST', `/users/@me/relationships`, { username: 'nobody_here_at_all' }, 400, 80004],
        ['PUT', `/users/@me/relationships/${a.userId}`, {}, 400, 80003],
        ['PUT', `/users/@me/relationships/${b.userId}`, {}, 400, 80007],
        ['PUT', `/users/@me/relationships/${c.userId}`, {}, 400, 80010],
        ['PUT', `/users/@me/relationships/${c.userId}?type=3`, {}, 400, 80011],
        ['DELETE', `/users/@me/relationships/${b.userId}?type=4`, undefined, 400, 80012],
        ['DELETE', `/users/@me/relationships/${b.userId}?type=2`, undefined, 400, 80013],
        ['DELETE', `/users/@me/game-relationships/${b.userId}?type=1`, undefined, 400, 80006],
        ['PUT', `/users/@me/relationships/${b.userId}`, { type: 3 }, 400, 50035],
        ['PUT', `/users/@me/game-relationships/${b.userId}`, { type: 2 }, 400, 50035],
        ['DELETE', `/users/@me/relationships/${b.userId}?type=9`, undefined, 400, 50035],
        ['POST', `/users/@me/relationships`, {}, 400, 50035],
      ];
      for (const [method, path, body, status, code] of cases) {
        const r = await t.req(method, path, { token: a.token, body });
        expect([r.status, r.body?.code], `${method} ${path}`).toEqual([status, code]);
      }
      const botUser = (await t.req('GET', '/users/@me', { token: t.app.botToken, bot: true })).body.id;
      expect((await t.req('PUT', `/users/@me/relationships/${botUser}`, { token: a.token })).body.code).toBe(80002);
      expect((await t.req('PUT', `/users/@me/relationships/${b.userId}`, { token: t.app.botToken, bot: true })).status).toBe(403);
      expect(await relCount()).toBe(before);
    });

    it('blocks across scopes: ends the friendship, refuses requests, DMs and invites, and unblocks', async () => {
      const a = await player('Ace');
      const b = await player('Bix');
      await befriend(a, b);
      await t.req('PUT', `/users/@me/game-relationships/${b.userId}`, { token: a.token });
      expect((await t.req('PUT', `/users/@me/relationships/${a.userId}`, { token: b.token, body: { type: 2 } })).status).toBe(204);
      await a.gw!.next((f) => f.t === 'RELATIONSHIP_REMOVE' && f.d.id === b.userId);
      const bSees = await t.req('GET', '/users/@me/relationships', { token: b.token });
      expect(bSees.body).toEqual([expect.objectContaining({ id: a.userId, type: 2, game_type: 0 })]);
      expect((await t.req('GET', '/users/@me/relationships', { token: a.token })).body).toEqual([]);

      const before = [await relCount(), await dmCount(), await inviteCount()];
      expect((await t.req('PUT', `/users/@me/relationships/${b.userId}`, { token: a.token })).body.code).toBe(80001);
      expect((await t.req('POST', `/users/${b.userId}/messages`, { token: a.token, body: { content: 'hi?' } })).body.code).toBe(50007);
      await t.req('PUT', '/users/@me/activities', { token: a.token, body: { party: { id: 'party-a', size: [1, 4] }, secrets: { join: 'secret-a' } } });
      expect((await t.req('POST', `/users/${b.userId}/activity-invites`, { token: a.token, body: {} })).body.code).toBe(50007);
      expect([await relCount(), await dmCount(), await inviteCount()]).toEqual(before);

      expect((await t.req('DELETE', `/users/@me/relationships/${a.userId}?type=2`, { token: b.token })).status).toBe(204);
      // Unblocking does not bring the friendship back.
      expect((await t.req('GET', '/users/@me/relationships', { token: b.token })).body).toEqual([]);
    });
  });

  describe('presence', () => {
    it('reaches friends only, as PRESENCE_UPDATE, without the join secret', async () => {
      const a = await player('Pia');
      const friend = await player('Fritz');
      const stranger = await player('Stan');
      await befriend(a, friend);
      await friend.gw!.next((f) => f.t === 'PRESENCE_UPDATE' && f.d.user.id === a.userId);
      const r = await t.req('PUT', '/users/@me/activities', {
        token: a.token,
        body: {
          type: 3,
          name: 'Custom Name',
          state: 'In a group',
          state_url: 'https://example.com/state',
          details: 'Watching replays',
          details_url: 'https://example.com/details',
          status_display_type: 2,
          timestamps: { start: 1_700_000_000 },
          assets: { large_image: 'map', large_text: 'The map', large_url: 'https://example.com/l', small_image: 'x', small_url: 'https://example.com/s', invite_cover_image: 'https://example.com/cover.png' },
          party: { id: 'party-1', size: [1, 4], privacy: 1 },
          secrets: { join: 'join-secret-1' },
          buttons: [{ label: 'Watch', url: 'https://example.com/watch' }],
          supported_platforms: 1,
        },
      });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ name: 'Custom Name', application_id: t.app.id, timestamps: { start: 1_700_000_000_000 }, secrets: { join: 'join-secret-1' } });
      const update = await friend.gw!.next((f) => f.t === 'PRESENCE_UPDATE' && f.d.user.id === a.userId && f.d.activities[0]?.name === 'Custom Name');
      expect(update.d.activities[0]).toMatchObject({ type: 3, state: 'In a group', party: { id: 'party-1', size: [1, 4], privacy: 1 }, buttons: [{ label: 'Watch' }] });
      expect(update.d.activities[0].secrets).toBeUndefined();

      expect((await t.req('PATCH', '/users/@me/settings', { token: a.token, body: { status: 'dnd' } })).body).toEqual({ status: 'dnd' });
      await friend.gw!.next((f) => f.t === 'PRESENCE_UPDATE' && f.d.user.id === a.userId && f.d.status === 'dnd');
      await t.req('PATCH', '/users/@me/settings', { token: a.token, body: { status: 'invisible' } });
      const hidden = await friend.gw!.next((f) => f.t === 'PRESENCE_UPDATE' && f.d.user.id === a.userId && f.d.status === 'offline');
      expect(hidden.d.activities).toEqual([]);
      await t.req('PATCH', '/users/@me/settings', { token: a.token, body: { status: 'online' } });
      expect((await t.req('DELETE', '/users/@me/activities', { token: a.token })).status).toBe(204);
      await friend.gw!.next((f) => f.t === 'PRESENCE_UPDATE' && f.d.user.id === a.userId && f.d.status === 'online' && f.d.activities[0]?.name === 'Test Game');

      // Gateway op 3 sets the same things.
      a.gw!.send({ op: 3, d: { since: null, afk: false, status: 'idle', activities: [{ type: 0, state: 'From op 3' }] } });
      await friend.gw!.next((f) => f.t === 'PRESENCE_UPDATE' && f.d.status === 'idle' && f.d.activities[0]?.state === 'From op 3');

      // The stranger never heard a thing about Pia.
      expect(stranger.gw!.dispatches('PRESENCE_UPDATE').filter((f) => f.d.user.id === a.userId)).toEqual([]);

      // Friends see Pia go offline when her last session ends; READY of a friend lists online friends.
      const late = await t.guest('Late');
      await befriend({ token: late.token, userId: late.userId }, a);
      const lateGw = await RawGateway.open(t.server);
      sockets.push(lateGw);
      const ready = await lateGw.identify(late.token);
      expect(ready.presences.map((p: any) => p.user.id)).toContain(a.userId);
      expect(ready.relationships.map((r: any) => r.id)).toEqual([a.userId]);
      expect(ready.user_settings).toEqual({ status: 'online' });
      a.gw!.ws.close(1000);
      await friend.gw!.next((f) => f.t === 'PRESENCE_UPDATE' && f.d.user.id === a.userId && f.d.status === 'offline');
    });

    it('applies the presence sent with Identify', async () => {
      const a = await player('Ida', false);
      const friend = await player('Fin');
      await befriend(a, friend);
      const gw = await RawGateway.open(t.server);
      sockets.push(gw);
      gw.send({ op: 2, d: { token: a.token, properties: { os: 'linux', browser: 'test', device: 'test' }, presence: { status: 'idle', since: null, afk: false, activities: [{ type: 2, state: 'From identify' }] } } });
      await gw.next((f) => f.t === 'READY');
      const p = await friend.gw!.next((f) => f.t === 'PRESENCE_UPDATE' && f.d.user.id === a.userId && f.d.activities[0]?.state === 'From identify');
      expect(p.d).toMatchObject({ status: 'idle', activities: [{ type: 2, name: 'Test Game' }] });
    });

    it('refuses bad activities with field errors, and nobody hears of them', async () => {
      const a = await player('Bad');
      const friend = await player('Fan');
      await befriend(a, friend);
      await friend.gw!.next((f) => f.t === 'PRESENCE_UPDATE' && f.d.user.id === a.userId);
      const seen = friend.gw!.dispatches('PRESENCE_UPDATE').length;
      const bad: [unknown, string, string][] = [
        [{ state: 's'.repeat(129) }, 'state', 'BASE_TYPE_BAD_LENGTH'],
        [{ details: 'd' }, 'details', 'BASE_TYPE_BAD_LENGTH'],
        [{ name: 'n'.repeat(129) }, 'name', 'BASE_TYPE_BAD_LENGTH'],
        [{ type: 1 }, 'type', 'BASE_TYPE_CHOICES'],
        [{ type: 4 }, 'type', 'BASE_TYPE_CHOICES'],
        [{ type: 6 }, 'type', 'BASE_TYPE_CHOICES'],
        [{ state_url: 'not a url' }, 'state_url', 'URL_TYPE_INVALID_URL'],
        [{ details_url: 'javascript:alert(1)' }, 'details_url', 'URL_TYPE_INVALID_SCHEME'],
        [{ buttons: [1, 2, 3].map((i) => ({ label: `b${i}`, url: 'https://e.com' })) }, 'buttons', 'BASE_TYPE_BAD_LENGTH'],
        [{ status_display_type: 3 }, 'status_display_type', 'BASE_TYPE_CHOICES'],
      ];
      for (const [body, field, code] of bad) {
        const r = await t.req('PUT', '/users/@me/activities', { token: a.token, body });
        expect(r.status, field).toBe(400);
        expect(r.body.code).toBe(50035);
        expect(r.body.errors[field]._errors[0].code, field).toBe(code);
      }
      const nested = await t.req('PUT', '/users/@me/activities', {
        token: a.token,
        body: { assets: { large_image: 'i'.repeat(301), large_url: 'u' }, party: { id: 'p', size: [5, 4] }, secrets: { join: 'j'.repeat(129) }, buttons: [{ label: '' }] },
      });
      expect(nested.body.errors.assets.large_image._errors[0].code).toBe('BASE_TYPE_BAD_LENGTH');
      expect(nested.body.errors.assets.large_url._errors[0].code).toBe('URL_TYPE_INVALID_URL');
      expect(nested.body.errors.party.id._errors[0].code).toBe('BASE_TYPE_BAD_LENGTH');
      expect(nested.body.errors.party.size['0']._errors[0].code).toBe('NUMBER_TYPE_MAX');
      expect(nested.body.errors.secrets.join._errors[0].code).toBe('BASE_TYPE_BAD_LENGTH');
      expect(nested.body.errors.buttons['0'].url._errors[0].code).toBe('BASE_TYPE_REQUIRED');
      expect((await t.req('PATCH', '/users/@me/settings', { token: a.token, body: { status: 'away' } })).body.code).toBe(50035);
      // The same checks on the Gateway: an invalid op 3 closes the socket with 4001.
      const extra = await RawGateway.open(t.server);
      sockets.push(extra);
      await extra.identify(a.token);
      extra.send({ op: 3, d: { activities: [{ type: 1 }] } });
      expect(await extra.closed()).toBe(4001);
      await new Promise((r) => setTimeout(r, 100));
      expect(friend.gw!.dispatches('PRESENCE_UPDATE').length).toBe(seen);
    });
  });

  describe('invites', () => {
    it('sends, delivers and accepts an invite; the cover falls back to the application; deep link; validity', async () => {
      const host = await player('Host');
      const guest = await player('Guest');
      await befriend(host, guest);
      const noParty = await t.req('POST', `/users/${guest.userId}/activity-invites`, { token: host.token, body: {} });
      expect(noParty.body.code).toBe(80020);
      expect((await t.req('PATCH', '/applications/@me/social-settings', { token: t.app.botToken, bot: true, body: { cover_image: 'https://cdn.example.com/app-cover.png', launch_url: 'https://games.example.com/play/' } })).status).toBe(200);
      const bad = await t.req('PATCH', '/applications/@me/social-settings', { token: t.app.botToken, bot: true, body: { launch_url: 'ftp://x' } });
      expect(bad.body.code).toBe(50035);

      await t.req('PUT', '/users/@me/activities', { token: host.token, body: { party: { id: 'party-h', size: [1, 2] }, secrets: { join: 'lobby-secret-h' } } });
      const sent = await t.req('POST', `/users/${guest.userId}/activity-invites`, { token: host.token, body: { content: 'come play' } });
      expect(sent.status).toBe(200);
      const created = await guest.gw!.next((f) => f.t === 'ACTIVITY_INVITE_CREATE');
      expect(created.d).toMatchObject({
        id: sent.body.id,
        type: 1,
        sender_id: host.userId,
        recipient_id: guest.userId,
        application_id: t.app.id,
        party_id: 'party-h',
        content: 'come play',
        is_valid: true,
        cover_image: 'https://cdn.example.com/app-cover.png',
        url: `https://games.example.com/play/?invite=${sent.body.id}`,
      });
      expect(JSON.stringify(created.d)).not.toContain('lobby-secret-h');
      // Only the recipient can read or accept it.
      expect((await t.req('POST', `/users/@me/activity-invites/${sent.body.id}/accept`, { token: host.token })).body.code).toBe(10006);
      expect((await t.req('GET', `/users/@me/activity-invites/${sent.body.id}`, { token: guest.token })).body.id).toBe(sent.body.id);
      const accepted = await t.req('POST', `/users/@me/activity-invites/${sent.body.id}/accept`, { token: guest.token });
      expect(accepted.body).toEqual({ secret: 'lobby-secret-h', party_id: 'party-h', application_id: t.app.id });

      // The activity's own cover wins over the application's.
      await t.req('PUT', '/users/@me/activities', { token: host.token, body: { party: { id: 'party-h', size: [1, 2] }, secrets: { join: 'lobby-secret-h' }, assets: { invite_cover_image: 'own-cover' } } });
      const second = await t.req('POST', `/users/${guest.userId}/activity-invites`, { token: host.token, body: {} });
      expect(second.body.cover_image).toBe('own-cover');

      // Six hours on, an invite is no longer valid even while the host still plays.
      await t.server.store.database.db.updateTable('activity_invites').set({ created_at: Date.now() - 6 * 3600_000 - 1000 }).where('id', '=', second.body.id).execute();
      expect((await t.req('GET', `/users/@me/activity-invites/${second.body.id}`, { token: guest.token })).body.is_valid).toBe(false);
      expect((await t.req('POST', `/users/@me/activity-invites/${second.body.id}/accept`, { token: guest.token })).body.code).toBe(80021);
      expect((await t.req('GET', '/users/@me/activity-invites', { token: guest.token })).body.map((i: any) => i.id)).toEqual([sent.body.id]);

      // The host leaves the party: the invites turn invalid and accepting fails.
      await t.req('DELETE', '/users/@me/activities', { token: host.token });
      const invalid = await guest.gw!.next((f) => f.t === 'ACTIVITY_INVITE_UPDATE' && f.d.id === sent.body.id);
      expect(invalid.d.is_valid).toBe(false);
      expect((await t.req('POST', `/users/@me/activity-invites/${sent.body.id}/accept`, { token: guest.token })).body.code).toBe(80021);

      // A full party cannot be invited to.
      await t.req('PUT', '/users/@me/activities', { token: host.token, body: { party: { id: 'party-h', size: [2, 2] }, secrets: { join: 'lobby-secret-h' } } });
      expect((await t.req('POST', `/users/${guest.userId}/activity-invites`, { token: host.token, body: {} })).body.code).toBe(80022);
    });

    it('takes join requests from friends (and from anyone to a public party) and answers them with an invite', async () => {
      const host = await player('Hana');
      const friend = await player('Fred');
      const coMember = await player('Cora');
      await befriend(host, friend);
      await t.req('PUT', '/users/@me/activities', { token: host.token, body: { party: { id: 'p-2', size: [1, 8] }, secrets: { join: 's-2' } } });
      const req = await t.req('POST', `/users/${host.userId}/activity-join-requests`, { token: friend.token });
      expect(req.body).toMatchObject({ type: 5, sender_id: friend.userId, recipient_id: host.userId, party_id: 'p-2' });
      await host.gw!.next((f) => f.t === 'ACTIVITY_INVITE_CREATE' && f.d.type === 5);
      const reply = await t.req('POST', `/users/@me/activity-invites/${req.body.id}/reply`, { token: host.token });
      expect(reply.body).toMatchObject({ type: 1, sender_id: host.userId, recipient_id: friend.userId });
      expect((await t.req('POST', `/users/@me/activity-invites/${reply.body.id}/accept`, { token: friend.token })).body.secret).toBe('s-2');

      // A lobby co-member who is not a friend may ask only when the party is public.
      for (const p of [host, coMember]) await t.req('PUT', '/lobbies', { token: p.token, body: { secret: 'shared-room' } });
      expect((await t.req('POST', `/users/${host.userId}/activity-join-requests`, { token: coMember.token })).body.code).toBe(80020);
      await t.req('PUT', '/users/@me/activities', { token: host.token, body: { party: { id: 'p-2', size: [1, 8], privacy: 1 }, secrets: { join: 's-2' } } });
      expect((await t.req('POST', `/users/${host.userId}/activity-join-requests`, { token: coMember.token })).status).toBe(200);
    });
  });

  describe('direct messages', () => {
    it('between friends: send with metadata, edit, delete, history, summaries, moderation metadata', async () => {
      const a = await player('Dee');
      const b = await player('Eli');
      await befriend(a, b);
      const sent = await t.req('POST', `/users/${b.userId}/messages`, { token: a.token, body: { content: 'hello', metadata: { kind: 'greeting' } } });
      expect(sent.status).toBe(200);
      expect(sent.body).toMatchObject({ content: 'hello', recipient_id: b.userId, channel_type: 1, application_id: t.app.id, metadata: { kind: 'greeting' }, edited_timestamp: null });
      for (const gw of [a.gw!, b.gw!]) await gw.next((f) => f.t === 'MESSAGE_CREATE' && f.d.id === sent.body.id);
      const reply = await t.req('POST', `/users/${a.userId}/messages`, { token: b.token, body: { content: 'hi!' } });
      expect(reply.body.channel_id).toBe(sent.body.channel_id);

      const before = await dmCount();
      const notMine = await t.req('PATCH', `/users/${a.userId}/messages/${sent.body.id}`, { token: b.token, body: { content: 'hacked' } });
      expect([notMine.status, notMine.body.code]).toEqual([403, 50005]);
      expect((await t.req('DELETE', `/users/${a.userId}/messages/${sent.body.id}`, { token: b.token })).body.code).toBe(50003);
      expect((await t.req('PATCH', `/users/${b.userId}/messages/123`, { token: a.token, body: { content: 'x' } })).body.code).toBe(10008);
      expect((await t.req('POST', `/users/${b.userId}/messages`, { token: a.token, body: { content: '' } })).body.code).toBe(50035);
      expect((await t.req('POST', `/users/${b.userId}/messages`, { token: a.token, body: { content: 'x'.repeat(2001) } })).body.code).toBe(50035);
      expect((await t.req('POST', '/users/123456789012345678/messages', { token: a.token, body: { content: 'x' } })).body.code).toBe(10013);
      expect(await dmCount()).toBe(before);
      expect((await t.req('GET', `/users/${b.userId}/messages`, { token: a.token })).body.find((m: any) => m.id === sent.body.id).content).toBe('hello');

      const edited = await t.req('PATCH', `/users/${b.userId}/messages/${sent.body.id}`, { token: a.token, body: { content: 'hello again' } });
      expect(edited.body.edited_timestamp).not.toBeNull();
      await b.gw!.next((f) => f.t === 'MESSAGE_UPDATE' && f.d.content === 'hello again');

      const mod = await t.req('PUT', `/channels/${sent.body.channel_id}/messages/${sent.body.id}/moderation-metadata`, { token: t.app.botToken, bot: true, body: { verdict: 'ok' } });
      expect(mod.status).toBe(204);
      await b.gw!.next((f) => f.t === 'MESSAGE_UPDATE' && f.d.moderation_metadata?.verdict === 'ok');
      const tooMany = await t.req('PUT', `/channels/${sent.body.channel_id}/messages/${sent.body.id}/moderation-metadata`, { token: t.app.botToken, bot: true, body: { a: '1', b: '2', c: '3', d: '4', e: '5', f: '6' } });
      expect(tooMany.body.code).toBe(50035);
      expect((await t.req('PUT', `/channels/${sent.body.channel_id}/messages/${sent.body.id}/moderation-metadata`, { token: a.token, body: {} })).status).toBe(403);

      const history = await t.req('GET', `/users/${b.userId}/messages?limit=10`, { token: a.token });
      expect(history.body.map((m: any) => m.content)).toEqual(['hi!', 'hello again']);
      expect(history.body[1].moderation_metadata).toEqual({ verdict: 'ok' });
      expect((await t.req('GET', `/users/${b.userId}/messages?limit=201`, { token: a.token })).body.code).toBe(50035);
      const summaries = await t.req('GET', '/users/@me/message-summaries', { token: a.token });
      expect(summaries.body).toEqual([{ user_id: b.userId, last_message_id: reply.body.id }]);

      expect((await t.req('DELETE', `/users/${b.userId}/messages/${sent.body.id}`, { token: a.token })).status).toBe(204);
      const deleted = await b.gw!.next((f) => f.t === 'MESSAGE_DELETE' && f.d.id === sent.body.id);
      expect(deleted.d).toEqual({ id: sent.body.id, channel_id: sent.body.channel_id, author_id: a.userId, recipient_id: b.userId });

      // The game backend's moderation webhooks: one outbox event per send, edit and delete, none for refusals.
      const events = (await t.server.store.webhookEvents.recent(t.app.id, 1000))
        .reverse()
        .filter((e) => e.type.startsWith('GAME_DIRECT_MESSAGE_') && JSON.parse(e.data).channel_id === sent.body.channel_id)
        .map((e) => [e.type, JSON.parse(e.data)]);
      expect(events.map(([type, data]) => [type, data.id])).toEqual([
        ['GAME_DIRECT_MESSAGE_CREATE', sent.body.id],
        ['GAME_DIRECT_MESSAGE_CREATE', reply.body.id],
        ['GAME_DIRECT_MESSAGE_UPDATE', sent.body.id],
        // The moderation metadata a bot set is an update too (issue 15).
        ['GAME_DIRECT_MESSAGE_UPDATE', sent.body.id],
        ['GAME_DIRECT_MESSAGE_DELETE', sent.body.id],
      ]);
      expect(events[0]![1]).toMatchObject({ content: 'hello', author: { id: a.userId }, channel: { id: sent.body.channel_id, type: 1, recipient_ids: [a.userId, b.userId] } });
    });

    it('who may message whom: strangers no, lobby co-members yes, replies yes, self and bots no', async () => {
      const a = await player('Ivy', false);
      const stranger = await player('Sam', false);
      const member = await player('Max', false);
      expect((await t.req('POST', `/users/${stranger.userId}/messages`, { token: a.token, body: { content: 'hey' } })).body.code).toBe(50007);
      expect((await t.req('POST', `/users/${a.userId}/messages`, { token: a.token, body: { content: 'me' } })).body.code).toBe(50007);
      const botUser = (await t.req('GET', '/users/@me', { token: t.app.botToken, bot: true })).body.id;
      expect((await t.req('POST', `/users/${botUser}/messages`, { token: a.token, body: { content: 'bot?' } })).body.code).toBe(50007);

      const lobby = (await t.req('PUT', '/lobbies', { token: a.token, body: { secret: 'dm-room' } })).body;
      await t.req('PUT', '/lobbies', { token: member.token, body: { secret: 'dm-room' } });
      const m = await t.req('POST', `/users/${member.userId}/messages`, { token: a.token, body: { content: 'we share a lobby' } });
      expect(m.status).toBe(200);
      // The co-member leaves; they may still answer, and then Ivy may write back.
      await t.req('DELETE', `/lobbies/${lobby.id}/members/@me`, { token: member.token });
      expect((await t.req('POST', `/users/${a.userId}/messages`, { token: member.token, body: { content: 'answer' } })).status).toBe(200);
      expect((await t.req('POST', `/users/${member.userId}/messages`, { token: a.token, body: { content: 'and back' } })).status).toBe(200);
    });

    it('lobby message moderation metadata reaches the members as LOBBY_MESSAGE_UPDATE', async () => {
      const a = await player('Lou');
      const lobby = (await t.req('PUT', '/lobbies', { token: a.token, body: { secret: 'mod-room' } })).body;
      const msg = (await t.req('POST', `/lobbies/${lobby.id}/messages`, { token: a.token, body: { content: 'gg', metadata: { team: 'red' } } })).body;
      const r = await t.req('PUT', `/lobbies/${lobby.id}/messages/${msg.id}/moderation-metadata`, { token: t.app.botToken, bot: true, body: { flagged: 'no' } });
      expect(r.status).toBe(204);
      const upd = await a.gw!.next((f) => f.t === 'LOBBY_MESSAGE_UPDATE');
      expect(upd.d).toMatchObject({ id: msg.id, moderation_metadata: { flagged: 'no' }, metadata: { team: 'red' } });
      expect((await t.req('PUT', `/lobbies/${lobby.id}/messages/123/moderation-metadata`, { token: t.app.botToken, bot: true, body: {} })).body.code).toBe(10008);
    });
  });
});
