// Guild reads and GUILD_STATUS through the companion, over the platform's public guild REST
// routes, with the game's own token (AUTHENTICATE): unmodified discord-rpc 4 and
// @xhayper/discord-rpc 1, and the error codes through our RpcClient.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as XhayperClient } from '@xhayper/discord-rpc';
// @ts-expect-error discord-rpc 4 has no declaration file
import DiscordRPC from 'discord-rpc';
import { RpcClient, RpcErrorCode } from '../src/index.ts';
import { type Account, type Env, signedInAccount, startCompanion, startEnv, waitFor } from './helpers.ts';

let env: Env;
let player: Account;
let stranger: Account;
let companion: Awaited<ReturnType<typeof startCompanion>>;
let guild: { id: string; name: string };
let channel: { id: string; name: string };
let strangersGuild: { id: string };
const savedRuntimeDir = process.env.XDG_RUNTIME_DIR;

beforeAll(async () => {
  env = await startEnv();
  player = await signedInAccount(env, 'guild_player');
  stranger = await signedInAccount(env, 'guild_stranger');
  guild = (await env.api('POST', '/guilds', player.web, { name: 'Lan Party' })).body;
  channel = (await env.api('POST', `/guilds/${guild.id}/channels`, player.web, { name: 'tactics', type: 0 })).body;
  strangersGuild = (await env.api('POST', '/guilds', stranger.web, { name: 'Elsewhere' })).body;
  expect(channel.id).toBeTruthy();
  companion = await startCompanion(env, [player.token], { ipcName: 'discord' });
  process.env.XDG_RUNTIME_DIR = companion.dir;
});

afterAll(async () => {
  if (savedRuntimeDir === undefined) delete process.env.XDG_RUNTIME_DIR;
  else process.env.XDG_RUNTIME_DIR = savedRuntimeDir;
  await companion?.companion.stop();
  await env?.close();
});

describe('guilds over IPC', () => {
  it('@xhayper/discord-rpc: GET_GUILDS, GET_GUILD, GET_CHANNELS, GET_CHANNEL and SUBSCRIBE GUILD_STATUS', async () => {
    const rpc = new XhayperClient({ clientId: env.app.id });
    await rpc.login({ scopes: ['identify', 'guilds'], accessToken: player.token });
    const guilds = await rpc.user!.fetchGuilds();
    expect(guilds.map((g) => [g.id, g.name])).toEqual([[guild.id, 'Lan Party']]);
    expect((await rpc.user!.fetchGuild(guild.id)).name).toBe('Lan Party');
    const channels = await rpc.user!.fetchChannels(guild.id);
    expect(channels.map((c) => c.name)).toContain('tactics');
    const one = await rpc.user!.fetchChannel(channel.id);
    expect([one.id, one.name, one.guild_id]).toEqual([channel.id, 'tactics', guild.id]);
    const statuses: any[] = [];
    rpc.on('GUILD_STATUS', (d) => statuses.push(d));
    await rpc.subscribe('GUILD_STATUS', { guild_id: guild.id });
    await waitFor(() => statuses.length > 0, 'GUILD_STATUS');
    expect(statuses[0]).toMatchObject({ guild: { id: guild.id, name: 'Lan Party' }, online: 0 });
    // A change to the guild comes as another GUILD_STATUS (from the player's GUILD_UPDATE).
    expect((await env.api('PATCH', `/guilds/${guild.id}`, player.web, { name: 'Lan Party II' })).status).toBe(200);
    await waitFor(() => statuses.some((s) => s.guild.name === 'Lan Party II'), 'GUILD_STATUS after the rename');
    expect((await env.api('PATCH', `/guilds/${guild.id}`, player.web, { name: 'Lan Party' })).status).toBe(200);
    await rpc.destroy();
  });

  it('discord-rpc 4: SUBSCRIBE GUILD_STATUS gets the event; the guild reads answer', async () => {
    const rpc = new DiscordRPC.Client({ transport: 'ipc' });
    await rpc.login({ clientId: env.app.id, accessToken: player.token, scopes: ['identify', 'guilds'] });
    expect((await rpc.getGuilds()).guilds).toEqual([expect.objectContaining({ id: guild.id, name: 'Lan Party' })]);
    expect((await rpc.getGuild(guild.id)).name).toBe('Lan Party');
    expect((await rpc.getChannels(guild.id)).map((c: { id: string }) => c.id)).toContain(channel.id);
    const status = new Promise<any>((resolve) => rpc.on('GUILD_STATUS', resolve));
    await rpc.subscribe('GUILD_STATUS', { guild_id: guild.id });
    expect(await status).toMatchObject({ guild: { id: guild.id, name: 'Lan Party' }, online: 0 });
    await rpc.destroy();
  });

  it('answers with the documented codes: 4006 before AUTHENTICATE, 4003 and 4005 for guilds and channels the player cannot see, 4009/4010 for wrong tokens', async () => {
    const rpc = new RpcClient({ clientId: env.app.id, name: 'discord', env: { XDG_RUNTIME_DIR: companion.dir } });
    await rpc.connect();
    const code = (p: Promise<unknown>) => p.then(() => 'resolved', (e: { code?: number }) => e.code);
    expect(await code(rpc.request('GET_GUILDS'))).toBe(RpcErrorCode.InvalidPermissions);
    expect(await code(rpc.request('SUBSCRIBE', { guild_id: guild.id }, 'GUILD_STATUS'))).toBe(RpcErrorCode.InvalidPermissions);
    expect(await code(rpc.request('AUTHENTICATE', { access_token: 'nope' }))).toBe(RpcErrorCode.InvalidToken);
    expect(await code(rpc.request('AUTHENTICATE', { access_token: stranger.token }))).toBe(RpcErrorCode.InvalidUser);
    const other = await env.server.createApplication({ name: 'Another Game' });
    const otherToken = (await signedInAccount(env, 'guild_other_app', other.id)).token;
    expect(await code(rpc.request('AUTHENTICATE', { access_token: otherToken }))).toBe(RpcErrorCode.InvalidToken);
    // A game signed in without rpc: the guild reads are refused for the scope (4006), not as unknown.
    const noRpc = await env.server.store.tokens.issue(player.userId, env.app.id, ['identify', 'sdk.social_layer', 'guilds'], 3600);
    await rpc.request('AUTHENTICATE', { access_token: noRpc });
    expect(await code(rpc.request('GET_GUILD', { guild_id: guild.id }))).toBe(RpcErrorCode.InvalidPermissions);
    expect(await code(rpc.request('GET_CHANNEL', { channel_id: channel.id }))).toBe(RpcErrorCode.InvalidPermissions);
    await rpc.request('AUTHENTICATE', { access_token: player.token });
    expect(await code(rpc.request('GET_GUILD', { guild_id: strangersGuild.id }))).toBe(RpcErrorCode.InvalidGuild);
    expect(await code(rpc.request('GET_GUILD', { guild_id: '123456789012345678' }))).toBe(RpcErrorCode.InvalidGuild);
    expect(await code(rpc.request('GET_GUILD', { guild_id: 'x' }))).toBe(RpcErrorCode.InvalidGuild);
    expect(await code(rpc.request('GET_CHANNEL', { channel_id: '123456789012345678' }))).toBe(RpcErrorCode.InvalidChannel);
    expect(await code(rpc.request('SUBSCRIBE', { guild_id: strangersGuild.id }, 'GUILD_STATUS'))).toBe(RpcErrorCode.InvalidGuild);
    // MESSAGE_* subscriptions are for channels of the player's guilds.
    await expect(rpc.request('SUBSCRIBE', { channel_id: channel.id }, 'MESSAGE_CREATE')).resolves.toEqual({ evt: 'MESSAGE_CREATE' });
    expect(await code(rpc.request('SUBSCRIBE', { channel_id: '123456789012345678' }, 'MESSAGE_CREATE'))).toBe(RpcErrorCode.InvalidChannel);
    await rpc.close();
  });
});
