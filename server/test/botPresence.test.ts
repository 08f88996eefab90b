import { describe, expect, it } from 'vitest';
import { parseBotPresence } from '../src/guilds/botPresence.ts';

/** A bot's op 3 `d`, read as the public Update Presence object (guilds/botPresence.ts). */
describe('parseBotPresence', () => {
  it('keeps status, afk, since and the activities a bot may set', () => {
    expect(parseBotPresence({ status: 'idle', afk: true, since: 1700000000000, activities: [{ name: 'Live', type: 1, url: 'https://example.com/live' }, { type: 4, state: 'Thinking' }] }, 5)).toEqual({
      status: 'idle',
      afk: true,
      since: 1700000000000,
      activities: [
        { name: 'Live', type: 1, url: 'https://example.com/live', created_at: 5 },
        // A Custom Status shows its state; its name defaults as the public client's does.
        { name: 'Custom Status', type: 4, state: 'Thinking', created_at: 5 },
      ],
    });
    // What libraries send when nothing is set: activities null, since null.
    expect(parseBotPresence({ status: 'online', activities: null, since: null, afk: false })).toEqual({ status: 'online', afk: false, since: null, activities: [] });
    // A url counts for streaming only.
    expect(parseBotPresence({ status: 'online', activities: [{ name: 'Chess', type: 0, url: 'https://example.com' }] }, 1)?.activities).toEqual([{ name: 'Chess', type: 0, created_at: 1 }]);
  });

  it('refuses what the public object does not allow', () => {
    for (const bad of [
      null,
      'online',
      {},
      { status: 'sleepy' },
      { status: 'online', since: -1 },
      { status: 'online', afk: 'yes' },
      { status: 'online', activities: {} },
      { status: 'online', activities: [{ name: 'x', type: 9 }] },
      { status: 'online', activities: [{ type: 0 }] },
      { status: 'online', activities: [{ name: 'x'.repeat(129), type: 0 }] },
      { status: 'online', activities: [{ name: 'x', type: 1, url: 'javascript:alert(1)' }] },
      { status: 'online', activities: Array.from({ length: 6 }, () => ({ name: 'x', type: 0 })) },
    ]) {
      expect(parseBotPresence(bad), JSON.stringify(bad)).toBeNull();
    }
  });
});
