import type { APIMessage } from 'discord-api-types/v10';
import { describe, expect, it } from 'vitest';
import { parseRoute, routePath } from '../web/src/state/routes.ts';
import { applyReaction, isSpoiler, parseContent, preview, removeMessages, searchHits, sortMessages, typingLine, typingNow, upsertMessage } from '../web/src/views/messages/messageModel.ts';

/** The channel view's pure functions (server/web/src/views/messages/messageModel.ts). */
const msg = (id: string, content = `m${id}`, extra: Partial<APIMessage> = {}): APIMessage =>
  ({ id, channel_id: '1', content, author: { id: '9', username: 'ada', global_name: 'Ada' }, attachments: [], embeds: [], mentions: [], timestamp: new Date(0).toISOString(), ...extra }) as unknown as APIMessage;

describe('web app messages model', () => {
  it('keeps messages oldest first by snowflake (length, then text) through creates, updates and deletes', () => {
    let list = sortMessages([msg('100'), msg('99'), msg('1000')]);
    expect(list.map((m) => m.id)).toEqual(['99', '100', '1000']);
    list = upsertMessage(list, msg('150'));
    expect(list.map((m) => m.id)).toEqual(['99', '100', '150', '1000']);
    list = upsertMessage(list, msg('100', 'edited'));
    expect(list.find((m) => m.id === '100')!.content).toBe('edited');
    expect(list).toHaveLength(4);
    const reply = msg('2000', 'r', { type: 19, referenced_message: msg('100') });
    list = removeMessages([...list, reply], ['100']);
    expect(list.map((m) => m.id)).toEqual(['99', '150', '1000', '2000']);
    expect(list.at(-1)!.referenced_message).toBeNull();
  });

  it('splits content into text, mentions and ||spoilers|| without reading any markup as HTML', () => {
    expect(parseContent('hi <@12> and <@&34> in <#56> @here ||secret <@12>|| <b>x</b>')).toEqual([
      { kind: 'text', text: 'hi ' }, { kind: 'user', id: '12' }, { kind: 'text', text: ' and ' }, { kind: 'role', id: '34' },
      { kind: 'text', text: ' in ' }, { kind: 'channel', id: '56' }, { kind: 'text', text: ' ' }, { kind: 'everyone', text: '@here' },
      { kind: 'text', text: ' ' }, { kind: 'spoiler', parts: [{ kind: 'text', text: 'secret ' }, { kind: 'user', id: '12' }] }, { kind: 'text', text: ' <b>x</b>' },
    ]);
    // An unpaired || stays text.
    expect(parseContent('a || b')).toEqual([{ kind: 'text', text: 'a ' }, { kind: 'text', text: '|| b' }]);
    expect(preview(msg('1', 'the ||ending|| was <@5>'))).toBe('the [spoiler] was @mention');
  });

  it('spoiler attachments: the IS_SPOILER flag or the SPOILER_ prefix', () => {
    expect(isSpoiler({ filename: 'a.png', flags: 8 })).toBe(true);
    expect(isSpoiler({ filename: 'SPOILER_a.png' })).toBe(true);
    expect(isSpoiler({ filename: 'a.png', flags: 4 })).toBe(false);
  });

  it('counts reactions from Gateway events, with `me` for the viewer', () => {
    let list = [msg('1')];
    list = applyReaction(list, { message_id: '1', user_id: 'me', emoji: { id: null, name: '👍' } }, 1, 'me');
    list = applyReaction(list, { message_id: '1', user_id: 'bo', emoji: { id: null, name: '👍' } }, 1, 'me');
    expect(list[0]!.reactions).toMatchObject([{ count: 2, me: true, emoji: { name: '👍' } }]);
    list = applyReaction(list, { message_id: '1', user_id: 'me', emoji: { id: null, name: '👍' } }, -1, 'me');
    expect(list[0]!.reactions).toMatchObject([{ count: 1, me: false }]);
    list = applyReaction(list, { message_id: '1', user_id: 'bo', emoji: { id: null, name: '👍' } }, -1, 'me');
    expect(list[0]!.reactions).toEqual([]);
  });

  it('typing lasts 10 s, never shows oneself, and reads as a sentence', () => {
    expect(typingNow({ a: 1000, b: 5000, me: 9000 }, 12_000, 'me')).toEqual(['b']);
    expect(typingLine([])).toBe('');
    expect(typingLine(['Ada'])).toBe('Ada is typing…');
    expect(typingLine(['Ada', 'Bo', 'Cy'])).toBe('Ada, Bo and Cy are typing…');
    expect(typingLine(['a', 'b', 'c', 'd'])).toBe('Several people are typing…');
  });

  it('reads search hits from the public answer shape (each hit wrapped in an array)', () => {
    expect(searchHits({ messages: [[msg('1')], [msg('2')]] }).map((m) => m.id)).toEqual(['1', '2']);
    expect(searchHits({})).toEqual([]);
  });

  it('routes the DM pages: /app/dms and /app/dms/ID', () => {
    expect(parseRoute('/app/dms')).toEqual({ name: 'dms' });
    expect(parseRoute('/app/dms/123')).toEqual({ name: 'dms', channelId: '123' });
    expect(parseRoute('/app/dms/abc')).toEqual({ name: 'notFound' });
    expect(routePath({ name: 'dms', channelId: '123' })).toBe('/app/dms/123');
  });
});
