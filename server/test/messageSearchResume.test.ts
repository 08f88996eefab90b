import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, databaseConfigs, dropTestSchemas, startTestServer, type TestServer } from './harness.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import type { ChannelMessagesTable } from '../src/storage/ChannelMessageRepo.ts';
import { openDatabase } from '../src/storage/database.ts';
import '../src/storage/moderationSchema.ts';

/**
 * The search index backfill survives a restart (issue 11): a server stopped while a guild's index
 * is being built leaves the job's row at its cursor; a server started on the same database resumes
 * it (no search needed to wake it), indexes each message once, and then answers 200.
 */
const N = 60_000;

afterAll(async () => {
  await dropTestSchemas();
  cleanupTempDirs();
});

describe.each(databaseConfigs())('search backfill across a restart on $name', ({ config }) => {
  it('resumes at the cursor after a restart and indexes every message once', async () => {
    const database = config();
    let t: TestServer = await startTestServer({ rateLimits: false, database });
    const g = await t.guest('Owner');
    const token = await t.server.store.tokens.issue(g.userId, (await t.server.store.applications.firstParty()).id, ['identify', 'guilds'], 3600);
    const guildId = (await guildServicesFor(t.server.store, undefined as never).guilds.createGuild(g.userId, { name: 'Resume Guild' })).id;
    const channelId = (await t.server.store.guilds.channels(guildId)).find((c) => c.type === 0)!.id;
    const start = Date.now() - N;
    await t.server.store.database.db.transaction().execute(async (tx) => {
      for (let i0 = 0; i0 < N; i0 += 500) {
        const rows: ChannelMessagesTable[] = [];
        for (let i = i0; i < i0 + 500; i++) {
          rows.push({
            id: t.server.store.ids.next(start + i), channel_id: channelId, guild_id: guildId, author_id: g.userId, application_id: null, type: 0,
            content: `${i % 1000 === 0 ? 'milestone ' : ''}entry ${i}`, flags: 0, tts: 0, nonce: null, mention_everyone: 0, mentions: '[]', mention_roles: '[]',
            embeds: '[]', components: '[]', attachments: '[]', message_reference: null, message_snapshots: null, interaction_metadata: null, pinned_at: null, edited_at: null, created_at: start + i,
          });
        }
        await tx.insertInto('channel_messages').values(rows).execute();
      }
    });
    const search = () => t.req('GET', `/guilds/${guildId}/messages/search?content=milestone`, { token });
    expect((await search()).status).toBe(202);
    // Stop at once: the job is mid-way, its row holds the cursor.
    await t.close();

    // Read the job's row while no server runs.
    const handle = await openDatabase(database);
    const mid = await handle.db.selectFrom('message_search_guilds').selectAll().where('guild_id', '=', guildId).executeTakeFirstOrThrow();
    await handle.close();
    expect(mid.state).toBe(0);
    expect(Number(mid.indexed)).toBeLessThan(N);

    t = await startTestServer({ rateLimits: false, database });
    // The new server resumed the build on start: wait for the row, not for a search to wake it.
    const deadline = Date.now() + 120_000;
    let st = mid;
    while (st.state !== 1 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      st = await t.server.store.database.db.selectFrom('message_search_guilds').selectAll().where('guild_id', '=', guildId).executeTakeFirstOrThrow();
    }
    expect([st.state, Number(st.indexed)]).toEqual([1, N]);
    const done = await search();
    expect([done.status, done.body.total_results]).toEqual([200, N / 1000]);
    await t.close();
  }, 180_000);
});
