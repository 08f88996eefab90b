import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Permission } from '../src/guilds/permissions.ts';

/**
 * Components on guild messages (issue 11): legacy action rows (5 at most, buttons and selects),
 * IS_COMPONENTS_V2 (1<<15) with the V2 types and 40 components in total, premium buttons naming
 * an available SKU of the sending app; each violation is 50035 at its field path.
 */
let t: TestServer;
let owner: { token: string; userId: string };
let channelId: string;
const V2 = 1 << 15;

beforeAll(async () => {
  t = await startTestServer({ rateLimits: false });
  const g = await t.guest('Owner');
  owner = { token: await t.server.store.tokens.issue(g.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600), userId: g.userId };
  const s = guildServicesFor(t.server.store, undefined as never);
  const guild = await s.guilds.createGuild(owner.userId, { name: 'Components' });
  channelId = (await t.server.store.guilds.channels(guild.id)).find((c) => c.type === 0)!.id;
  await s.installBot(guild.id, t.app.id, Permission.ViewChannel | Permission.SendMessages | Permission.ReadMessageHistory);
});
afterAll(async () => {
  await t.close();
  cleanupTempDirs();
});

const send = (body: unknown, bot = false) => t.req('POST', `/channels/${channelId}/messages`, bot ? { token: t.app.botToken, bot: true, body } : { token: owner.token, body });
const button = (id: string) => ({ type: 2, style: 1, label: id, custom_id: id });
const text = (content: string) => ({ type: 10, content });

describe('components', () => {
  it('stores legacy action rows as sent and refuses a sixth row, a bad button or a select sharing a row', async () => {
    const ok = await send({ content: 'pick', components: [{ type: 1, components: [button('a'), button('b'), { type: 2, style: 5, label: 'site', url: 'https://example.com' }] }] });
    expect(ok.status).toBe(200);
    expect(ok.body.components[0].components[2]).toMatchObject({ style: 5, url: 'https://example.com' });
    const six = await send({ content: 'x', components: Array.from({ length: 6 }, (_, i) => ({ type: 1, components: [button(`b${i}`)] })) });
    expect([six.status, six.body.code]).toEqual([400, 50035]);
    expect(six.body.errors.components).toBeDefined();
    const noId = await send({ content: 'x', components: [{ type: 1, components: [{ type: 2, style: 1, label: 'no id' }] }] });
    expect(noId.body.errors.components['0'].components['0'].custom_id._errors[0].code).toBe('BASE_TYPE_REQUIRED');
    const crowded = await send({ content: 'x', components: [{ type: 1, components: [button('a'), { type: 3, custom_id: 's', options: [{ label: 'A', value: 'a' }] }] }] });
    expect(crowded.body.code).toBe(50035);
    // A link button opens the web or the client's deep links, never a script.
    for (const [url, code] of [['javascript:alert(1)', 'URL_TYPE_INVALID_SCHEME'], ['data:text/html,<script>1</script>', 'URL_TYPE_INVALID_SCHEME'], ['JaVaScRiPt:alert(1)', 'URL_TYPE_INVALID_SCHEME'], ['not a url', 'URL_TYPE_INVALID_URL']]) {
      const link = await send({ content: 'x', components: [{ type: 1, components: [{ type: 2, style: 5, label: 'go', url }] }] });
      expect([link.status, link.body.errors?.components['0'].components['0'].url._errors[0].code], url).toEqual([400, code]);
    }
    expect((await send({ content: 'x', components: [{ type: 1, components: [{ type: 2, style: 5, label: 'go', url: 'discord://-/channels/1/2' }] }] })).status).toBe(200);
    // `required` is a modal field: on a String Select in a message it is ignored, whatever it says.
    for (const required of [true, false]) {
      const select = await send({ content: 'pick one', components: [{ type: 1, components: [{ type: 3, custom_id: `req-${required}`, options: [{ label: 'A', value: 'a' }], required }] }] });
      expect(select.status, String(required)).toBe(200);
      expect(select.body.components[0].components[0]).toMatchObject({ type: 3, custom_id: `req-${required}` });
    }
    const v2TypeWithoutFlag = await send({ content: 'x', components: [text('hello')] });
    expect(v2TypeWithoutFlag.body.errors.components['0'].type._errors[0].code).toBe('COMPONENT_TYPE_INVALID');
  });

  it('IS_COMPONENTS_V2: the V2 types, no content or embeds, 40 components in total', async () => {
    const message = [
      text('# Title'),
      { type: 9, components: [text('left')], accessory: { type: 11, media: { url: 'https://example.com/a.png' } } },
      { type: 14, divider: true, spacing: 2 },
      { type: 12, items: [{ media: { url: 'https://example.com/b.png' }, description: 'b' }] },
      { type: 17, accent_color: 0xff0000, components: [text('inside'), { type: 1, components: [button('go')] }] },
    ];
    const ok = await send({ flags: V2, components: message });
    expect(ok.status).toBe(200);
    expect(ok.body.flags & V2).toBe(V2);
    expect(ok.body.components).toHaveLength(5);
    expect((await send({ flags: V2, content: 'no', components: [text('x')] })).body.errors.content).toBeDefined();
    // 40 is the ceiling, nested components included: a container of 39 texts is 40; 40 texts in it is 41.
    expect((await send({ flags: V2, components: [{ type: 17, components: Array.from({ length: 39 }, (_, i) => text(`t${i}`)) }] })).status).toBe(200);
    const over = await send({ flags: V2, components: [{ type: 17, components: Array.from({ length: 40 }, (_, i) => text(`t${i}`)) }] });
    expect([over.status, over.body.code]).toEqual([400, 50035]);
    const nested = await send({ flags: V2, components: [{ type: 17, components: [{ type: 17, components: [text('deep')] }] }] });
    expect(nested.body.errors.components['0'].components['0'].type).toBeDefined();
    const v2Flag = (await t.req('PATCH', `/channels/${channelId}/messages/${ok.body.id}`, { token: owner.token, body: { flags: 0 } }));
    expect(v2Flag.body.code).toBe(50035);
  });

  it('premium buttons name an available SKU of the sending app', async () => {
    const premium = (sku: string) => ({ content: 'buy', components: [{ type: 1, components: [{ type: 2, style: 6, sku_id: sku }] }] });
    const unknown = await send(premium('123456789012345678'), true);
    expect(unknown.body.errors.components['0'].components['0'].sku_id._errors[0].code).toBe('COMPONENT_INVALID_SKU');
    const id = t.server.store.ids.next();
    await t.server.store.database.db.insertInto('skus').values({ id, application_id: t.app.id, type: 5, name: 'Gem', slug: `gem-${id}`, flags: 1 << 2, price: 100, billing_period_days: null, created_at: Date.now() }).execute();
    expect((await send(premium(id), true)).status).toBe(200);
    // A user (not an app) cannot send premium buttons.
    expect((await send(premium(id))).body.code).toBe(50035);
  });
});
