import { connect, type AddressInfo } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { RawGateway, cleanupTempDirs, startTestServer, tempDir, webToken, type TestServer } from './harness.ts';
import { developmentCertificate } from '../src/config/devTls.ts';
import { guildServicesFor } from '../src/guilds/GuildServices.ts';
import { Intent, ApplicationIntentFlag } from '../src/guilds/intents.ts';
import { Permission } from '../src/guilds/permissions.ts';

/**
 * The world each public client-library test (clientLib*.test.ts) drives its library against: a
 * real server, a guild owned by a person, the library's bot installed in it with the permissions
 * the steps need, and a second bot (the observer, on a raw Gateway socket with GUILD_PRESENCES)
 * that must see the library bot's presence. The library itself is pointed at `restBase` /
 * `gatewayUrl` only through its own options; nothing here patches it.
 */
export interface ClientLibWorld {
  t: TestServer;
  /** The library bot's application and token. */
  appId: string;
  botToken: string;
  /** `http://host:port/api`: the REST root without the version (libraries add `/v10`). */
  restBase: string;
  /** `http://host:port/api/v10`. */
  restVersioned: string;
  /** `ws://host:port/gateway` (what GET /gateway/bot answers too). */
  gatewayUrl: string;
  host: string;
  port: number;
  guildId: string;
  /** The guild's first text channel. */
  channelId: string;
  owner: { userId: string; token: string };
  /** The second bot in the guild, identified with GUILDS | GUILD_MEMBERS | GUILD_PRESENCES. */
  observer: RawGateway;
  observerUserId: string;
  /** Invokes a chat-input command as the guild owner through POST /interactions (the web app's path). */
  invokeCommand(command: { id: string; name: string }, channelId?: string): Promise<{ status: number; body: any }>;
  /** A new person who accepts the invite `code` (POST /invites/{code}); resolves with their user ID. */
  joinByInvite(code: string): Promise<string>;
  close(): Promise<void>;
}

/** What the library bot may do in the guild: every step of the client-library tests. */
const BOT_PERMISSIONS = Permission.ViewChannel | Permission.SendMessages | Permission.ManageChannels | Permission.ManageMessages
  | Permission.AddReactions | Permission.ReadMessageHistory | Permission.CreateInstantInvite | Permission.ManageRoles
  | Permission.EmbedLinks | Permission.UseApplicationCommands | Permission.PinMessages;

/** GUILD_MEMBERS and GUILD_PRESENCES, as a developer switches them on (the limited flags, under 100 guilds). */
const INTENT_FLAGS = ApplicationIntentFlag.GatewayGuildMembersLimited | ApplicationIntentFlag.GatewayPresenceLimited;

export async function startClientLibWorld(): Promise<ClientLibWorld> {
  // Budgets stay on: the libraries' own rate-limit handling reads our X-RateLimit-* headers.
  const t = await startTestServer();
  const firstParty = (await t.server.store.applications.firstParty()).id;
  const ownerGuest = await t.guest('Owner');
  const owner = { userId: ownerGuest.userId, token: await t.server.store.tokens.issue(ownerGuest.userId, firstParty, ['identify', 'guilds'], 3600) };
  const services = guildServicesFor(t.server.store, undefined as never);
  const guildId = (await services.guilds.createGuild(owner.userId, { name: 'Library Guild' })).id;
  const channelId = (await t.server.store.guilds.channels(guildId)).find((c) => c.type === 0)!.id;
  await services.installBot(guildId, t.app.id, BOT_PERMISSIONS);

  const observerApp = await t.server.createApplication({ name: 'Observer' });
  await services.installBot(guildId, observerApp.id, Permission.ViewChannel);
  for (const token of [t.app.botToken, observerApp.botToken]) {
    const r = await t.req('PATCH', '/applications/@me', { token, bot: true, body: { flags: INTENT_FLAGS } });
    if (r.status !== 200) throw new Error(`enabling intents failed: ${r.status} ${JSON.stringify(r.body)}`);
  }
  const observer = await RawGateway.open(t.server);
  const ready = await observer.identify(observerApp.botToken, Intent.Guilds | Intent.GuildMembers | Intent.GuildPresences);
  await observer.next((f) => f.t === 'GUILD_CREATE' && f.d.id === guildId);

  const url = new URL(t.server.url);
  return {
    t,
    appId: t.app.id,
    botToken: t.app.botToken,
    restBase: `${t.server.url}/api`,
    restVersioned: t.api,
    gatewayUrl: `${t.server.url.replace(/^http/, 'ws')}/gateway`,
    host: url.hostname,
    port: Number(url.port),
    guildId,
    channelId,
    owner,
    observer,
    observerUserId: ready.user.id,
    invokeCommand: (command, inChannel = channelId) =>
      t.req('POST', '/interactions', { token: owner.token, body: { type: 2, guild_id: guildId, channel_id: inChannel, data: { id: command.id, name: command.name, type: 1 } } }),
    async joinByInvite(code) {
      const guest = await t.guest('Joiner');
      const r = await t.req('POST', `/invites/${code}`, { token: await webToken(t, guest.userId) });
      if (r.status !== 200) throw new Error(`joining by invite failed: ${r.status} ${JSON.stringify(r.body)}`);
      return guest.userId;
    },
    async close() {
      observer.terminate();
      await t.close();
      cleanupTempDirs();
    },
  };
}

/** Resolves when `check` returns a value other than undefined (polled on the library's events, never a fixed sleep). */
export function waitFor<T>(what: string, check: () => T | undefined, timeoutMs = 15_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + timeoutMs;
    const tick = () => {
      let v: T | undefined;
      try {
        v = check();
      } catch (e) {
        reject(e);
        return;
      }
      if (v !== undefined) resolve(v);
      else if (Date.now() > deadline) reject(new Error(`timed out waiting for ${what}`));
      else setTimeout(tick, 20);
    };
    tick();
  });
}

/**
 * A TLS front for the world's server: TLS terminated here, the bytes piped unchanged to the
 * server's plain port (what a load balancer in front of a deployment does). For a library that
 * only speaks HTTPS (eris: `https.request` to its `domain`, no scheme option); the certificate is
 * the development one, for localhost, and `ca` is what the library's agent must trust.
 */
export async function startTlsFront(w: ClientLibWorld): Promise<{ port: number; ca: string; close(): Promise<void> }> {
  const cert = await developmentCertificate(tempDir(), { dev: true });
  const sockets = new Set<{ destroy(): void }>();
  const front = createTlsServer({ key: cert.key, cert: cert.cert }, (client) => {
    const upstream = connect(w.port, w.host);
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  return {
    port: (front.address() as AddressInfo).port,
    ca: cert.cert,
    close: () => new Promise<void>((resolve) => {
      // Kept-alive connections would hold close() open.
      for (const s of sockets) s.destroy();
      front.close(() => resolve());
    }),
  };
}
