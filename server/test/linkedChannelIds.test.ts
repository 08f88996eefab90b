import { describe, expect, it } from 'vitest';
import { LocalEventBus } from '../src/events/EventBus.ts';
import { LinkedChannelIds } from '../src/lobbies/linkedChannelIds.ts';

/**
 * Security review P1: the set of linked channel IDs lives in memory, so a message in an unlinked
 * channel costs no query; it is reloaded after a link change on this node or another (event bus).
 */
function fakeDb(rows: { channel_id: string }[]) {
  const db = {
    queries: 0,
    selectFrom: () => ({ select: () => ({ execute: async () => { db.queries++; return rows.slice(); } }) }),
  };
  return db;
}

describe('LinkedChannelIds', () => {
  it('loads once, answers from memory, and reloads after a change here or on another node', async () => {
    const rows = [{ channel_id: 'c1' }];
    const db = fakeDb(rows);
    const bus = new LocalEventBus();
    const a = new LinkedChannelIds(db as never, bus, 60_000);
    const b = new LinkedChannelIds(db as never, bus, 60_000);
    expect(a.known('c1')).toBeUndefined();
    expect(await a.has('c1')).toBe(true);
    expect(await b.has('c2')).toBe(false);
    expect(db.queries).toBe(2);
    for (let i = 0; i < 100; i++) expect(a.known(`x${i}`)).toBe(false);
    expect(await a.has('c1')).toBe(true);
    expect(db.queries).toBe(2);

    rows.push({ channel_id: 'c2' });
    a.invalidate(true); // node a linked c2: b hears it over the bus
    expect(b.known('c2')).toBeUndefined();
    expect(await b.has('c2')).toBe(true);
    expect(await a.has('c2')).toBe(true);
    a.close();
    b.close();
  });

  it('reloads after the TTL as a backstop', async () => {
    const db = fakeDb([]);
    // A TTL of a whole second: with 0, a millisecond ticking between a load and the look after
    // it already counted as expired, and a loaded machine saw three loads (a CI rehearsal).
    const ids = new LinkedChannelIds(db as never, new LocalEventBus(), 1_000);
    await ids.has('c');
    await ids.has('c');
    expect(db.queries).toBe(1);
    await new Promise((r) => setTimeout(r, 1_100));
    await ids.has('c');
    expect(db.queries).toBe(2);
    ids.close();
  });
});
