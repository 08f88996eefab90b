import type { APIAttachment, APIGuildMember, APIMessage, APIUser } from 'discord-api-types/v10';

/**
 * Pure functions of the channel view (no DOM, no network), so they are tested without a browser
 * (server/test/webAppMessagesModel.test.ts): the message list kept in step with Gateway events,
 * spoilers, content split into text, mentions and spoilers, names, typing.
 */

/** IS_SPOILER on an attachment (public value 1 << 3). */
export const ATTACHMENT_IS_SPOILER = 1 << 3;
/** MessageType REPLY and MessageReferenceType FORWARD (public values). */
export const MESSAGE_TYPE_REPLY = 19;
export const REFERENCE_FORWARD = 1;

/** Messages are kept oldest first; snowflakes order by length, then as text. */
export function idLess(a: string, b: string): boolean {
  return a.length !== b.length ? a.length < b.length : a < b;
}

export function sortMessages(list: readonly APIMessage[]): APIMessage[] {
  return [...list].sort((a, b) => (a.id === b.id ? 0 : idLess(a.id, b.id) ? -1 : 1));
}

/** MESSAGE_CREATE or MESSAGE_UPDATE (a whole message): replaces the one with its ID, or joins the list in order. */
export function upsertMessage(list: readonly APIMessage[], m: APIMessage): APIMessage[] {
  const i = list.findIndex((x) => x.id === m.id);
  // Replies quote the message as it is now.
  const requoted = list.map((x) => (x.referenced_message?.id === m.id ? ({ ...x, referenced_message: m } as APIMessage) : x));
  if (i >= 0) {
    const next = requoted;
    // Gateway copies carry no per-viewer `reactions.me`; keep what the list knew when absent.
    next[i] = { ...m, reactions: m.reactions ?? list[i]!.reactions } as APIMessage;
    return next;
  }
  return sortMessages([...requoted, m]);
}

/** MESSAGE_DELETE / _BULK: gone from the list; replies to them now show the original as deleted. */
export function removeMessages(list: readonly APIMessage[], ids: readonly string[]): APIMessage[] {
  const gone = new Set(ids);
  return list
    .filter((m) => !gone.has(m.id))
    .map((m) => (m.referenced_message && gone.has(m.referenced_message.id) ? ({ ...m, referenced_message: null } as APIMessage) : m));
}

export function isSpoiler(a: Pick<APIAttachment, 'filename'> & { flags?: number }): boolean {
  return ((a.flags ?? 0) & ATTACHMENT_IS_SPOILER) !== 0 || a.filename.startsWith('SPOILER_');
}

export function isImage(a: Pick<APIAttachment, 'filename'> & { content_type?: string }): boolean {
  return a.content_type ? /^image\/(png|jpeg|gif|webp)$/.test(a.content_type) : /\.(png|jpe?g|gif|webp)$/i.test(a.filename);
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export type ContentPart =
  | { kind: 'text'; text: string }
  | { kind: 'user'; id: string }
  | { kind: 'role'; id: string }
  | { kind: 'channel'; id: string }
  | { kind: 'everyone'; text: string }
  | { kind: 'spoiler'; parts: ContentPart[] };

const TOKEN = /<@!?(\d{1,20})>|<@&(\d{1,20})>|<#(\d{1,20})>|@everyone|@here/g;

function inline(text: string): ContentPart[] {
  const out: ContentPart[] = [];
  let at = 0;
  for (const m of text.matchAll(TOKEN)) {
    if (m.index > at) out.push({ kind: 'text', text: text.slice(at, m.index) });
    if (m[1]) out.push({ kind: 'user', id: m[1] });
    else if (m[2]) out.push({ kind: 'role', id: m[2] });
    else if (m[3]) out.push({ kind: 'channel', id: m[3] });
    else out.push({ kind: 'everyone', text: m[0] });
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push({ kind: 'text', text: text.slice(at) });
  return out;
}

/**
 * Content split into plain text, mentions (`<@id>`, `<@&id>`, `<#id>`, @everyone/@here) and
 * `||spoilers||`. Everything stays text: the view renders each part as a text node, so nothing
 * in a message is ever parsed as HTML.
 */
export function parseContent(content: string): ContentPart[] {
  const out: ContentPart[] = [];
  const pieces = content.split('||');
  // An odd count of `||` leaves the last one unpaired: it is text.
  const paired = pieces.length % 2 === 1 ? pieces.length : pieces.length - 1;
  for (let i = 0; i < pieces.length; i++) {
    const piece = i < paired ? pieces[i]! : `||${pieces[i]!}`;
    if (piece === '') continue;
    if (i % 2 === 1 && i < paired) out.push({ kind: 'spoiler', parts: inline(piece) });
    else out.push(...inline(piece));
  }
  return out;
}

/** The name shown for a user: the guild nick, the display name, the username. */
export function displayName(user: Pick<APIUser, 'id' | 'username' | 'global_name'> | undefined, members: readonly APIGuildMember[] = []): string {
  if (!user) return 'Unknown';
  const member = members.find((m) => m.user?.id === user.id);
  return member?.nick ?? user.global_name ?? user.username;
}

/** A short one-line preview of a message (reply headers, pins, search hits). */
export function preview(m: Pick<APIMessage, 'content' | 'attachments' | 'embeds'> | null | undefined, max = 120): string {
  if (!m) return '';
  // Spoilers stay hidden and mention markup reads as a mention, in a line of plain text.
  const text = m.content.replace(/\|\|[^]*?\|\|/g, '[spoiler]').replace(/<@[!&]?\d{1,20}>/g, '@mention').replace(/<#\d{1,20}>/g, '#channel').replace(/\s+/g, ' ').trim();
  if (text) return text.length > max ? `${text.slice(0, max - 1)}…` : text;
  if (m.attachments.length > 0) return `Attachment: ${m.attachments.map((a) => a.filename).join(', ')}`;
  if (m.embeds.length > 0) return m.embeds[0]!.title ?? 'Embed';
  return '';
}

/** How long a TYPING_START shows (the public client's figure). */
export const TYPING_MS = 10_000;

/** Who is typing now, given the last TYPING_START time per user (the user's own excluded; they stop when they send). */
export function typingNow(last: Readonly<Record<string, number>>, now: number, meId: string | null): string[] {
  return Object.entries(last)
    .filter(([id, at]) => id !== meId && now - at < TYPING_MS)
    .map(([id]) => id);
}

export function typingLine(names: readonly string[]): string {
  if (names.length === 0) return '';
  if (names.length === 1) return `${names[0]} is typing…`;
  if (names.length <= 3) return `${names.slice(0, -1).join(', ')} and ${names.at(-1)} are typing…`;
  return 'Several people are typing…';
}

/** Time of day for today's messages, else the date and time. */
export function formatTime(iso: string, now = new Date()): string {
  const d = new Date(iso);
  const sameDay = d.toDateString() === now.toDateString();
  return sameDay ? d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) : d.toLocaleString([], { dateStyle: 'short', timeStyle: 'short' });
}

/** A search answer's hits: the public shape wraps each hit in an array (`messages: [[m], ...]`). */
export function searchHits(body: { messages?: unknown }): APIMessage[] {
  const list = Array.isArray(body.messages) ? body.messages : [];
  return list.map((x) => (Array.isArray(x) ? x[0] : x)).filter((m): m is APIMessage => typeof m === 'object' && m !== null && typeof (m as { id?: unknown }).id === 'string');
}

export interface ReactionEvent {
  message_id: string;
  user_id: string;
  emoji: { id: string | null; name: string | null };
}

/** MESSAGE_REACTION_ADD (+1) / _REMOVE (-1) on the list: counts, and `me` when it is the viewer's. */
export function applyReaction(list: readonly APIMessage[], ev: ReactionEvent, delta: 1 | -1, meId: string | null): APIMessage[] {
  const same = (e: { id: string | null; name: string | null }) => (ev.emoji.id ? e.id === ev.emoji.id : e.name === ev.emoji.name);
  return list.map((m) => {
    if (m.id !== ev.message_id) return m;
    const reactions = [...(m.reactions ?? [])];
    const i = reactions.findIndex((r) => same(r.emoji));
    const mine = ev.user_id === meId;
    if (i < 0) {
      if (delta < 0) return m;
      reactions.push({ count: 1, count_details: { burst: 0, normal: 1 }, me: mine, me_burst: false, burst_colors: [], emoji: { id: ev.emoji.id, name: ev.emoji.name } } as never);
    } else {
      const r = reactions[i]!;
      const count = r.count + delta;
      if (count <= 0) reactions.splice(i, 1);
      else reactions[i] = { ...r, count, count_details: { ...r.count_details, normal: Math.max(0, r.count_details.normal + delta) }, me: mine ? delta > 0 : r.me };
    }
    return { ...m, reactions } as APIMessage;
  });
}
