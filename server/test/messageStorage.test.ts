import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/storage/database.ts';
import { Store } from '../src/storage/Store.ts';
import { ChannelMessageRepo, type NewChannelMessage } from '../src/storage/ChannelMessageRepo.ts';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas } from './harness.ts';

afterAll(async () => {
  cleanupTempDirs();
  await dropTestSchemas();
});

const msg = (content: string, author = '100000000000000001', extra: Partial<NewChannelMessage> = {}): NewChannelMessage => ({
  channel_id: '200000000000000001',
  guild_id: '300000000000000001',
  author_id: author,
  application_id: null,
  type: 0,
  content,
  flags: 0,
  tts: 0,
  nonce: null,
  mention_everyone: 0,
  message_reference: null,
  message_snapshots: null,
  interaction_metadata: null,
  ...extra,
});

/** Contract of the channel-message storage (migration 0008) on every backend. */
describe.each(databaseConfigs())('channel messages on $name', ({ config }) => {
  let store: Store;
  let repo: ChannelMessageRepo;

  beforeEach(async () => {
    store = new Store(await openDatabase(config()));
    repo = new ChannelMessageRepo(store.database.db, store.ids);
  });
  afterEach(async () => {
    await store.close();
  });

  it('pages history before, after and around an ID, newest first', async () => {
    const rows = [];
    for (let i = 0; i < 10; i++) rows.push(await repo.insert(store.database.db, msg(`m${i}`), Date.now() + i));
    const ids = rows.map((r) => r.id);
    expect((await repo.page(rows[0]!.channel_id, { limit: 3 })).map((r) => r.content)).toEqual(['m9', 'm8', 'm7']);
    expect((await repo.page(rows[0]!.channel_id, { before: ids[5]!, limit: 2 })).map((r) => r.content)).toEqual(['m4', 'm3']);
    expect((await repo.page(rows[0]!.channel_id, { after: ids[5]!, limit: 2 })).map((r) => r.content)).toEqual(['m7', 'm6']);
    expect((await repo.page(rows[0]!.channel_id, { around: ids[5]!, limit: 4 })).map((r) => r.content)).toEqual(['m6', 'm5', 'm4', 'm3']);
    // Cursors of other lengths lie outside every minted ID.
    expect((await repo.page(rows[0]!.channel_id, { after: '0', limit: 2 })).map((r) => r.content)).toEqual(['m1', 'm0']);
    expect(await repo.page(rows[0]!.channel_id, { before: '5', limit: 2 })).toEqual([]);
    expect(await repo.page('999', { limit: 50 })).toEqual([]);
    expect(await repo.inChannel('999', ids[0]!)).toBeUndefined();
    expect((await repo.inChannel(rows[0]!.channel_id, ids[0]!))?.content).toBe('m0');
  });

  it('claims a nonce once within the window, and a failed transaction claims nothing', async () => {
    const db = store.database.db;
    const first = await repo.transaction(async (tx) => {
      const m = await repo.insert(tx, msg('once', undefined, { nonce: 'n1' }));
      expect(await repo.claimNonce(tx, m.author_id, 'n1', m.id, Date.now(), 300_000)).toBeNull();
      return m;
    });
    expect(await repo.claimNonce(db, first.author_id, 'n1', 'x', Date.now(), 300_000)).toBe(first.id);
    // Another author's same nonce is theirs.
    expect(await repo.claimNonce(db, '100000000000000002', 'n1', 'y', Date.now(), 300_000)).toBeNull();
    // After the window the claim moves to the new message.
    expect(await repo.claimNonce(db, first.author_id, 'n1', 'z', Date.now() + 400_000, 300_000)).toBeNull();
    expect((await repo.nonceClaim(first.author_id, 'n1'))?.message_id).toBe('z');
    await expect(
      repo.transaction(async (tx) => {
        const m = await repo.insert(tx, msg('rolled back', undefined, { nonce: 'n2' }));
        await repo.claimNonce(tx, m.author_id, 'n2', m.id, Date.now(), 300_000);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await repo.nonceClaim(first.author_id, 'n2')).toBeUndefined();
    expect(await repo.count(first.channel_id)).toBe(1);
  });

  it('counts reactions per emoji with `me`, lists reactors by ID, removes them with the message', async () => {
    const db = store.database.db;
    const m = await repo.insert(db, msg('react'));
    let at = Date.now();
    const add = (row: Parameters<ChannelMessageRepo['addReaction']>[1]) => repo.addReaction(db, row, at++);
    const r = (user: string, key = '👍', type = 0) => ({ message_id: m.id, emoji_key: key, user_id: user, type, emoji_id: null, emoji_name: key, animated: 0 });
    expect(await add(r('100000000000000002'))).toBe(true);
    expect(await add(r('100000000000000002'))).toBe(false);
    await add(r('100000000000000003'));
    await add(r('100000000000000003', 'party:400000000000000001'));
    await add(r('100000000000000002', '👍', 1));
    const counts = (await repo.reactionCounts([m.id], '100000000000000002')).get(m.id)!;
    expect(counts.map((c) => [c.emoji_key, c.normal, c.burst, c.me, c.me_burst])).toEqual([
      ['👍', 2, 1, true, true],
      ['party:400000000000000001', 1, 0, false, false],
    ]);
    // Several messages in one read (a page): each gets its own counts, the same as read alone.
    const other = await repo.insert(db, msg('react too'));
    await repo.addReaction(db, { ...r('100000000000000004', '🎉'), message_id: other.id }, at++);
    const page = await repo.reactionCounts([other.id, m.id, '1'], '100000000000000002');
    expect(page.get(m.id)).toEqual(counts);
    expect(page.get(other.id)?.map((c) => [c.emoji_key, c.normal, c.me])).toEqual([['🎉', 1, false]]);
    expect(page.has('1')).toBe(false);
    expect(await repo.reactors(m.id, '👍', { type: 0, limit: 10 })).toEqual(['100000000000000002', '100000000000000003']);
    expect(await repo.reactors(m.id, '👍', { type: 0, after: '100000000000000002', limit: 10 })).toEqual(['100000000000000003']);
    expect(await repo.hasEmoji(m.id, '🎉')).toBe(false);
    expect((await repo.removeReactions(db, m.id, { emojiKey: '👍', userId: '100000000000000003' })).length).toBe(1);
    await repo.delete(db, [m.id]);
    expect(await repo.get(m.id)).toBeUndefined();
    expect((await repo.reactionCounts([m.id], 'x')).size).toBe(0);
  });

  it('lists pins newest pin first, before a time, and finds an author\'s last message', async () => {
    const db = store.database.db;
    const a = await repo.insert(db, msg('a'));
    const b = await repo.insert(db, msg('b', '100000000000000002'));
    await repo.update(db, a.id, { pinned_at: 1000 });
    await repo.update(db, b.id, { pinned_at: 2000 });
    expect((await repo.pins(a.channel_id, { limit: 50 })).map((r) => r.content)).toEqual(['b', 'a']);
    expect((await repo.pins(a.channel_id, { before: 2000, limit: 50 })).map((r) => r.content)).toEqual(['a']);
    expect(await repo.pinCount(a.channel_id)).toBe(2);
    expect(await repo.lastByAuthor(a.channel_id, '100000000000000002')).toBe(Number(b.created_at));
    expect(await repo.lastByAuthor(a.channel_id, '100000000000000009')).toBeUndefined();
  });
});
