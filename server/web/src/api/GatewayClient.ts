import type { GatewayReceivePayload } from 'discord-api-types/v10';
import { dropToken, sessionToken } from './session.ts';
import { Intent, Op } from './wire.ts';

export type DispatchListener = (event: string, data: unknown) => void;

/** The guild events the app shows: guilds, channels, roles, members and invites. */
// GUILD_VOICE_STATES: who is in each voice channel (VoicePanel's list).
// Messages (views/messages): guild and DM messages, reactions and typing. A user session gets
// content without MESSAGE_CONTENT (the rule is for apps), so the privileged intent is not asked.
const INTENTS = Intent.Guilds | Intent.GuildMembers | Intent.GuildInvites | Intent.GuildVoiceStates |
  Intent.GuildMessages | Intent.GuildMessageReactions | Intent.GuildMessageTyping | Intent.DirectMessages | Intent.DirectMessageReactions | Intent.DirectMessageTyping;

/** Every client's dispatches, for views that are not handed the client (the channel view). */
const anyClient = new Set<DispatchListener>();
export function onDispatch(listener: DispatchListener): () => void {
  anyClient.add(listener);
  return () => void anyClient.delete(listener);
}

/**
 * The public Gateway (v10, JSON), identified with the session token. The app keeps no resume
 * state: after any close it identifies again (a fresh token after 4004) and reloads what it shows,
 * which is simpler than Resume and enough for a page.
 */
export class GatewayClient {
  private socket: WebSocket | null = null;
  private heartbeat: ReturnType<typeof setInterval> | null = null;
  private seq: number | null = null;
  private stopped = false;
  private retries = 0;
  private readonly listeners = new Set<DispatchListener>();

  on(listener: DispatchListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async start(): Promise<void> {
    this.stopped = false;
    const { url } = (await (await fetch('/api/v10/gateway')).json()) as { url: string };
    const token = await sessionToken();
    if (this.stopped) return;
    const socket = new WebSocket(`${url}?v=10&encoding=json`);
    this.socket = socket;
    socket.onmessage = (m) => this.onFrame(JSON.parse(String(m.data)) as GatewayReceivePayload, token);
    socket.onclose = (e) => {
      this.clearHeartbeat();
      if (this.socket !== socket || this.stopped) return;
      if (e.code === 4004) dropToken(token);
      // Back off a little more each time, up to 30 s, so a server restart is not hammered.
      const delay = Math.min(30_000, 500 * 2 ** this.retries++);
      setTimeout(() => void this.start().catch(() => undefined), delay);
    };
  }

  stop(): void {
    this.stopped = true;
    this.clearHeartbeat();
    this.socket?.close(1000);
    this.socket = null;
  }

  private send(payload: unknown): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(payload));
  }

  private clearHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  private onFrame(frame: GatewayReceivePayload, token: string): void {
    if (frame.s !== null && frame.s !== undefined) this.seq = frame.s;
    switch (frame.op) {
      case Op.Hello:
        this.clearHeartbeat();
        this.heartbeat = setInterval(() => this.send({ op: Op.Heartbeat, d: this.seq }), frame.d.heartbeat_interval);
        this.send({ op: Op.Identify, d: { token, intents: INTENTS, properties: { os: 'browser', browser: 'social-layer-web', device: 'social-layer-web' } } });
        break;
      case Op.Heartbeat:
        this.send({ op: Op.Heartbeat, d: this.seq });
        break;
      case Op.Reconnect:
      case Op.InvalidSession:
        this.socket?.close(4000);
        break;
      case Op.Dispatch:
        if (frame.t === 'READY') this.retries = 0;
        for (const l of this.listeners) l(frame.t, frame.d);
        for (const l of anyClient) l(frame.t, frame.d);
        break;
      default:
        break;
    }
  }
}
