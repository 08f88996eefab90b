import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, DiscordAPIError, Events, GatewayIntentBits, Routes } from 'discord.js';
import { cleanupTempDirs, startTestServer, type TestServer } from './harness.ts';

/**
 * Wire compatibility (DESIGN.md): an existing public client library, unmodified, pointed at our
 * server. discord.js v14 logs in as the application's bot over our REST (/gateway/bot) and
 * Gateway (Hello, Identify, READY), uses our REST, and reads our error bodies as its own.
 */
let t: TestServer;
let client: Client;

beforeAll(async () => {
  t = await startTestServer();
  client = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: `${t.server.url}/api` } });
});
afterAll(async () => {
  await client.destroy();
  await t.close();
  cleanupTempDirs();
});

describe('discord.js against Social Layer', () => {
  it('logs in as the application bot and becomes ready', async () => {
    const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
    await client.login(t.app.botToken);
    await ready;
    const me = await t.req('GET', '/users/@me', { token: t.app.botToken, bot: true });
    expect(client.user?.id).toBe(me.body.id);
    expect(client.user?.bot).toBe(true);
    expect(client.application?.id).toBe(t.app.id);
  });

  it('calls our REST API through its own REST client, and reads our errors as DiscordAPIError', async () => {
    const me = (await client.rest.get(Routes.user())) as { id: string; bot: boolean };
    expect(me.id).toBe(client.user?.id);
    expect(me.bot).toBe(true);
    const error = await client.rest.get('/lobbies/123456789012345678').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DiscordAPIError);
    expect((error as DiscordAPIError).code).toBe(10031);
    expect((error as DiscordAPIError).status).toBe(404);
    expect((error as DiscordAPIError).message).toContain('Unknown Lobby');
  });

  it('refuses a wrong bot token the way discord.js expects (TokenInvalid, no retry)', async () => {
    const other = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: `${t.server.url}/api` } });
    await expect(other.login('not-a-real-bot-token-but-long-enough-to-look-like-one')).rejects.toThrow(/invalid token/i);
    await other.destroy();
  });
});
