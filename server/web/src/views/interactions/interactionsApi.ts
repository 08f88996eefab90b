import { ApiRequestError, RestClient } from '../../api/RestClient.ts';
import { dropToken, sessionToken } from '../../api/session.ts';

/**
 * The web app's interaction calls: the commands it may offer in a channel, and invoking a
 * command, a component or a modal submit (POST /interactions, as the public client does).
 */
const rest = new RestClient();

export interface CommandOption {
  type: number;
  name: string;
  description: string;
  required?: boolean;
  choices?: { name: string; value: string | number }[];
  options?: CommandOption[];
  min_value?: number;
  max_value?: number;
  max_length?: number;
  autocomplete?: boolean;
}

export interface IndexedCommand {
  id: string;
  application_id: string;
  type: number;
  name: string;
  description: string;
  options?: CommandOption[];
  application: { id: string; name: string };
}

let nonceCounter = 0;
export const newNonce = () => `${Date.now()}${(nonceCounter++ % 1000).toString().padStart(3, '0')}`;

/** POST /interactions as the public multipart form (`payload_json` + `files[n]`): a modal's File Upload. */
async function invokeWithFiles(body: Record<string, unknown>, files: File[]): Promise<{ id: string; nonce: string | null }> {
  for (let attempt = 0; ; attempt++) {
    const form = new FormData();
    form.append('payload_json', JSON.stringify(body));
    files.forEach((f, n) => form.append(`files[${n}]`, f, f.name));
    const token = await sessionToken();
    const res = await fetch('/api/v10/interactions', { method: 'POST', headers: { authorization: token }, body: form, cache: 'no-store' });
    if (res.status === 401 && attempt === 0) {
      dropToken(token);
      continue;
    }
    const out = (await res.json().catch(() => ({}))) as { code?: number; message?: string; errors?: unknown };
    if (!res.ok) throw new ApiRequestError(res.status, out.code ?? 0, out.message ?? `HTTP ${res.status}`, out.errors);
    return out as { id: string; nonce: string | null };
  }
}

export const interactionsApi = {
  invokeWithFiles,
  commands: (channelId: string) => rest.get<{ application_commands: IndexedCommand[] }>(`/channels/${encodeURIComponent(channelId)}/application-command-index`).then((r) => r.application_commands),
  invoke: (body: Record<string, unknown>) => rest.post<{ id: string; nonce: string | null }>('/interactions', body),
};
