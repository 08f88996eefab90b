// MESSAGE_CREATE/UPDATE/DELETE through the companion: the platform's guild messages (issue 11)
// reach an RPC subscriber of that channel over the player's Gateway session, and only for the
// subscribed channel. A real server, a real companion, our RpcClient over the IPC socket.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcClient } from '../src/index.ts';
import { type Account, type Env, signedInAccount, startCompanion, startEnv } from './helpers.ts';

let env: Env;
let player: Account;
let companion: Awaited<ReturnType<typeof startCompanion>>;
let channel: { id: string };
let other: { id: string };

beforeAll(async () => {
  env = await startEnv();
  player = await signedInAccount(env, 'message_player');
  const guild = (await env.api('POST', '/guilds', player.web, { name: 'Chatty' })).body;
  channel = (await env.api('POST', `/guilds/${guild.id}/channels`, player.web, { name: 'chat', type: 0 })).body;
  other = (await env.api('POST', `/guilds/${guild.id}/channels`, player.web, { name: 'elsewhere', type: 0 })).body;
  companion = await startCompanion(env, [player.token], { ipcName: 'discord' });
});

afterAll(async () => {
  await companion?.companion.stop();
  await env?.close();
});

describe('message events over IPC', () => {
  it('SUBSCRIBE MESSAGE_CREATE/UPDATE/DELETE for a channel: the platform\'s events for that channel arrive, others do not', async () => {
    const rpc = new RpcClient({ clientId: env.app.id, name: 'discord', env: { XDG_RUNTIME_DIR: companion.dir } });
    await rpc.connect();
    await rpc.request('AUTHENTICATE', { access_token: player.token });
    for (const evt of ['MESSAGE_CREATE', 'MESSAGE_UPDATE', 'MESSAGE_DELETE']) {
      await expect(rpc.request('SUBSCRIBE', { channel_id: channel.id }, evt)).resolves.toEqual({ evt });
    }
    const seen: any[] = [];
    rpc.on('MESSAGE_CREATE', (d) => seen.push(d));

    const created = rpc.next('MESSAGE_CREATE', (d) => d.message?.content === 'gg everyone');
    // Another channel's message first: it must not reach this subscriber.
    expect((await env.api('POST', `/channels/${other.id}/messages`, player.web, { content: 'not here' })).status).toBe(200);
    const sent = await env.api('POST', `/channels/${channel.id}/messages`, player.web, { content: 'gg everyone' });
    expect(sent.status).toBe(200);
    expect(await created).toMatchObject({ channel_id: channel.id, message: { id: sent.body.id, content: 'gg everyone', author: { id: player.userId } } });

    const updated = rpc.next('MESSAGE_UPDATE', (d) => d.message?.id === sent.body.id);
    expect((await env.api('PATCH', `/channels/${channel.id}/messages/${sent.body.id}`, player.web, { content: 'gg, well played' })).status).toBe(200);
    expect((await updated).message.content).toBe('gg, well played');

    const deleted = rpc.next('MESSAGE_DELETE', (d) => d.message?.id === sent.body.id);
    expect((await env.api('DELETE', `/channels/${channel.id}/messages/${sent.body.id}`, player.web)).status).toBe(204);
    expect(await deleted).toEqual({ channel_id: channel.id, message: { id: sent.body.id } });

    expect(seen.some((d) => d.channel_id === other.id || d.message?.content === 'not here')).toBe(false);
    await rpc.close();
  });
});
