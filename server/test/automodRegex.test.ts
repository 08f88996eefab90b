import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, databaseConfigs, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { compileKeywords, unsafeRegex } from '../src/moderation/automodMatch.ts';

/**
 * Security review H2: AutoMod `regex_patterns` run on RE2 (linear time). Patterns that make a
 * backtracking engine take seconds on a short message are accepted and cannot stall the event
 * loop; patterns RE2 cannot run (backreferences, lookaround) are refused at creation.
 */
const EVIL = ['((a+))+$', '((?:a+))+$', '(a|aa)+$', '(a+)+$'];
const none = { keyword_filter: [], allow_list: [] };

describe('AutoMod regex matching (unit)', () => {
  it('accepts the evil patterns and matches adversarial input quickly', () => {
    for (const p of EVIL) expect([p, unsafeRegex(p)]).toEqual([p, undefined]);
    const match = compileKeywords({ ...none, regex_patterns: EVIL });
    // No time assertion: before the fix the 27-character message alone took seconds per pattern.
    expect(match('a'.repeat(26) + '!')).toBeUndefined();
    expect(match('a'.repeat(1999) + '!')).toBeUndefined();
    expect(match('b ' + 'a'.repeat(30))).toEqual({ keyword: '((a+))+$', content: 'a'.repeat(30) });
  });

  it('matches wildcard keywords in time linear in a long word (1,000 `*x*` keywords)', () => {
    // Before, a leading `*` was `W*` retried at every position of the word: ~3 s for this message.
    const match = compileKeywords({ keyword_filter: Array.from({ length: 1000 }, (_, i) => `*k${i}x*`), regex_patterns: [], allow_list: [] });
    expect(match('a'.repeat(2000))).toBeUndefined();
    expect(match('a'.repeat(1000) + 'K7X' + 'a'.repeat(996))).toEqual({ keyword: '*k7x*', content: 'a'.repeat(1000) + 'K7X' + 'a'.repeat(996) });
    // The wildcard rules are unchanged: a word start, a word end, a whole word.
    const kw = (k: string, s: string) => compileKeywords({ keyword_filter: [k], regex_patterns: [], allow_list: [] })(s)?.content;
    expect([kw('*cat', 'a bobcat!'), kw('cat*', 'catfish x'), kw('*cat*', 'xcatx'), kw('cat', 'bobcat cat'), kw('*-x', 'a-x-x')]).toEqual(['bobcat', 'catfish', 'xcatx', 'cat', 'a-x']);
    expect(compileKeywords({ keyword_filter: ['*-x'], regex_patterns: [], allow_list: ['a-x'] })('a-x-x')).toEqual({ keyword: '*-x', content: '-x' });
  });

  it('refuses what RE2 cannot run and keeps ordinary patterns and allow_list working', () => {
    for (const p of ['(a)\\1', '(?<x>a)\\k<x>', 'a(?=b)', '(?<!a)b', '(?!a)', '(', '(.*){1000}x']) expect([p, unsafeRegex(p)]).toEqual([p, expect.any(String)]);
    const match = compileKeywords({ keyword_filter: [], regex_patterns: ['fr[o0]g', 'bad\\w*'], allow_list: ['badminton'] });
    expect(match('A FR0G')).toEqual({ keyword: 'fr[o0]g', content: 'FR0G' });
    expect(match('I love badminton')).toBeUndefined();
    expect(match('badminton is badness')).toEqual({ keyword: 'bad\\w*', content: 'badness' });
    // A row stored before this check (not RE2 syntax) never matches instead of failing every message.
    expect(compileKeywords({ ...none, regex_patterns: ['(a)\\1'] })('aa')).toBeUndefined();
  });
});

describe('AutoMod regex on a real server (SQLite)', () => {
  let t: TestServer;
  let owner: { token: string; userId: string };
  let member: { token: string };
  let guildId: string;
  let textId: string;

  beforeAll(async () => {
    t = await startTestServer({ rateLimits: false, database: databaseConfigs()[0]!.config() });
    const g = await t.guest('Owner');
    owner = { token: await t.server.store.tokens.issue(g.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600), userId: g.userId };
    guildId = (await guildServicesFor(t.server.store, undefined as never).guilds.createGuild(owner.userId, { name: 'Evil regex' })).id;
    const m = await t.guest('Member');
    member = { token: await t.server.store.tokens.issue(m.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600) };
    await guildServicesFor(t.server.store, undefined as never).members.join(guildId, m.userId);
    textId = (await t.server.store.guilds.channels(guildId)).find((c) => c.type === 0)!.id;
  });
  afterAll(async () => {
    await t.close();
    cleanupTempDirs();
  });

  const create = (regex_patterns: string[]) => t.req('POST', `/guilds/${guildId}/auto-moderation/rules`, {
    token: owner.token,
    body: { name: 'r', event_type: 1, trigger_type: 1, trigger_metadata: { regex_patterns }, actions: [{ type: 1 }], enabled: true },
  });

  it('refuses backreferences and lookaround with 50035 at the field path', async () => {
    const r = await create(['ok', 'a(?=b)']);
    expect([r.status, r.body.code]).toEqual([400, 50035]);
    expect(r.body.errors.trigger_metadata.regex_patterns['1']._errors[0].code).toBe('AUTO_MODERATION_INVALID_REGEX');
    expect((await create(['(x)\\1'])).body.code).toBe(50035);
  });

  it('accepts the evil patterns; a 2,000-character message is answered and the server keeps serving', async () => {
    const r = await create(EVIL);
    expect(r.status).toBe(200);
    // A member: the owner is not subject to AutoMod.
    const send = (content: string) => t.req('POST', `/channels/${textId}/messages`, { token: member.token, body: { content } });
    const [sent, other] = await Promise.all([send('a'.repeat(1999) + '!'), t.req('GET', `/guilds/${guildId}/auto-moderation/rules`, { token: owner.token })]);
    expect(sent.status).toBe(200);
    expect(other.status).toBe(200);
    const blocked = await send('x ' + 'a'.repeat(1998));
    expect([blocked.status, blocked.body]).toEqual([400, expect.objectContaining({ code: 200000 })]);
  });
});
