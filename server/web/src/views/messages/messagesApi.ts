import type { APIMessage } from 'discord-api-types/v10';
import { ApiRequestError, RestClient } from '../../api/RestClient.ts';
import { dropToken, sessionToken } from '../../api/session.ts';

/**
 * The channel view's calls, all on the public message routes with the page's session token
 * (the same routes any client uses). Uploads are the public multipart form: `payload_json`
 * with `attachments: [{id, filename, is_spoiler}]` beside `files[n]`.
 */
const rest = new RestClient();
const enc = encodeURIComponent;

export interface SendBody {
  content?: string;
  nonce?: string;
  message_reference?: { message_id: string; type?: number; channel_id?: string };
}

export interface PendingFile {
  file: File;
  spoiler: boolean;
}

export interface SearchAnswer {
  /** The index is still being built (202, code 110000): try again after `retryAfter` seconds. */
  indexing?: { retryAfter: number };
  total: number;
  messages: unknown[];
}

async function multipart(path: string, form: FormData): Promise<APIMessage> {
  for (let attempt = 0; ; attempt++) {
    const token = await sessionToken();
    const res = await fetch(`/api/v10${path}`, { method: 'POST', headers: { authorization: token }, body: form, cache: 'no-store' });
    if (res.status === 401 && attempt === 0) {
      dropToken(token);
      continue;
    }
    const body = (await res.json().catch(() => ({}))) as { code?: number; message?: string; errors?: unknown };
    if (!res.ok) throw new ApiRequestError(res.status, body.code ?? 0, body.message ?? `HTTP ${res.status}`, body.errors);
    return body as unknown as APIMessage;
  }
}

export const messagesApi = {
  around: (channelId: string, id: string) => rest.get<APIMessage[]>(`/channels/${channelId}/messages?limit=50&around=${id}`),
  history: (channelId: string, before?: string) => rest.get<APIMessage[]>(`/channels/${channelId}/messages?limit=50${before ? `&before=${before}` : ''}`),

  send(channelId: string, body: SendBody, files: readonly PendingFile[] = []): Promise<APIMessage> {
    if (files.length === 0) return rest.post<APIMessage>(`/channels/${channelId}/messages`, body);
    const form = new FormData();
    const attachments = files.map((f, i) => ({ id: i, filename: f.file.name, ...(f.spoiler ? { is_spoiler: true } : {}) }));
    form.append('payload_json', JSON.stringify({ ...body, attachments }));
    files.forEach((f, i) => form.append(`files[${i}]`, f.file, f.file.name));
    return multipart(`/channels/${channelId}/messages`, form);
  },

  edit: (channelId: string, messageId: string, content: string) => rest.request<APIMessage>('PATCH', `/channels/${channelId}/messages/${messageId}`, { content }),
  remove: (channelId: string, messageId: string) => rest.request<void>('DELETE', `/channels/${channelId}/messages/${messageId}`),
  typing: (channelId: string) => rest.post<void>(`/channels/${channelId}/typing`),

  pins: (channelId: string) => rest.get<{ items: { pinned_at: string; message: APIMessage }[]; has_more: boolean }>(`/channels/${channelId}/messages/pins?limit=50`),
  pin: (channelId: string, messageId: string) => rest.request<void>('PUT', `/channels/${channelId}/messages/pins/${messageId}`),
  unpin: (channelId: string, messageId: string) => rest.request<void>('DELETE', `/channels/${channelId}/messages/pins/${messageId}`),

  react: (channelId: string, messageId: string, emoji: string) => rest.request<void>('PUT', `/channels/${channelId}/messages/${messageId}/reactions/${enc(emoji)}/@me`),
  unreact: (channelId: string, messageId: string, emoji: string) => rest.request<void>('DELETE', `/channels/${channelId}/messages/${messageId}/reactions/${enc(emoji)}/@me`),

  /** Forward: a message in `toChannelId` whose snapshot is the source message. */
  forward: (toChannelId: string, source: { id: string; channel_id: string }) =>
    rest.post<APIMessage>(`/channels/${toChannelId}/messages`, { message_reference: { type: 1, message_id: source.id, channel_id: source.channel_id } }),

  /** Search Guild Messages (public route and answer shape); 202 / 110000 while the index is built. */
  async search(guildId: string, content: string, channelId?: string): Promise<SearchAnswer> {
    const q = new URLSearchParams({ content, sort_by: 'timestamp', sort_order: 'desc' });
    if (channelId) q.set('channel_id', channelId);
    const token = await sessionToken();
    const res = await fetch(`/api/v10/guilds/${guildId}/messages/search?${q}`, { headers: { authorization: token }, cache: 'no-store' });
    const body = (await res.json().catch(() => ({}))) as { code?: number; message?: string; retry_after?: number; total_results?: number; messages?: unknown[] };
    if (res.status === 202) return { indexing: { retryAfter: Number(body.retry_after ?? 2) }, total: 0, messages: [] };
    if (!res.ok) throw new ApiRequestError(res.status, body.code ?? 0, body.message ?? `HTTP ${res.status}`);
    return { total: Number(body.total_results ?? 0), messages: body.messages ?? [] };
  },

  /** The caller's DMs and group DMs, and opening one with a user. */
  dms: () => rest.get<unknown[]>('/users/@me/channels'),
  openDm: (userId: string) => rest.post<{ id: string }>('/users/@me/channels', { recipient_id: userId }),
  /** A group DM with friends (the client's form of Create Group DM). */
  createGroup: (recipients: string[], name: string | null) => rest.post<{ id: string }>('/users/@me/channels', { recipients, ...(name ? { name } : {}) }),
  /** Leave a group DM, or close a DM (Delete/Close Channel). */
  leave: (channelId: string) => rest.request<unknown>('DELETE', `/channels/${channelId}`),
  /** Platform friends (relationship type 1), for a new group. */
  friends: () =>
    rest.get<{ type: number; user: { id: string; username: string; global_name?: string | null } }[]>('/users/@me/relationships').then((list) => list.filter((r) => r.type === 1).map((r) => r.user)),
};
