// Presence set through IPC ends with the game: when the process named by SET_ACTIVITY's pid
// exits (the IPC connection may stay open, e.g. a launcher holds it), and when the game process
// itself dies without a word. Both within 5 seconds, seen by a friend on our SDK.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthorizationTokenType, Client } from '@social-layer/client';
import { RpcClient } from '../src/index.ts';
import { type Account, befriend, type Env, signedInAccount, startCompanion, startEnv, waitFor } from './helpers.ts';

let env: Env;
let player: Account;
let friendClient: Client;
let companion: Awaited<ReturnType<typeof startCompanion>>;
const children: ChildProcess[] = [];

beforeAll(async () => {
  env = await startEnv();
  player = await signedInAccount(env, 'pid_player');
  const friend = await signedInAccount(env, 'pid_friend');
  await befriend(env, player, friend);
  // The product's pid poll interval (1 s), not a faster test value.
  companion = await startCompanion(env, [player.token], { ipcName: 'discord', pidPollMs: 1000 });
  friendClient = new Client({ apiBase: env.url });
  await friendClient.updateToken(AuthorizationTokenType.Bearer, friend.token);
  await friendClient.connect();
});

afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await friendClient?.destroy();
  await companion?.companion.stop();
  await env?.close();
});

const details = () => friendClient.getUser(player.userId)?.gameActivity()?.details();

function spawnNode(code: string, env: NodeJS.ProcessEnv = process.env): ChildProcess {
  const child = spawn(process.execPath, ['-e', code], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return child;
}

async function killAndTime(child: ChildProcess, gone: () => boolean): Promise<number> {
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGKILL');
  await exited;
  const t0 = Date.now();
  await waitFor(gone, 'the activity to disappear', 10_000);
  return Date.now() - t0;
}

describe('presence lifetime', () => {
  it('clears the activity within 5 s of the process named by pid exiting, while the connection stays open', async () => {
    const game = spawnNode('setInterval(() => {}, 1000)');
    const rpc = new RpcClient({ clientId: env.app.id, name: 'discord', env: { XDG_RUNTIME_DIR: companion.dir } });
    await rpc.connect();
    await rpc.request('SET_ACTIVITY', { pid: game.pid, activity: { details: 'Launched by a launcher', state: 'Solo' } });
    await waitFor(() => details() === 'Launched by a launcher', 'the friend to see the activity');
    const elapsed = await killAndTime(game, () => details() === undefined);
    expect(elapsed).toBeLessThan(5000);
    expect(rpc.closed).toBeUndefined();
    // The connection still serves: a new activity for a live process shows again.
    await rpc.request('SET_ACTIVITY', { pid: process.pid, activity: { details: 'Back again' } });
    await waitFor(() => details() === 'Back again', 'the new activity');
    await rpc.close();
    await waitFor(() => details() === undefined, 'the activity to end with the connection');
  });

  it('clears the activity within 5 s of a game process (discord-rpc 4) being killed', async () => {
    const game = spawnNode(
      `const { Client } = require('discord-rpc');
       const c = new Client({ transport: 'ipc' });
       c.login({ clientId: ${JSON.stringify(env.app.id)} })
         .then(() => c.setActivity({ details: 'Killed soon', state: 'Playing' }))
         .then(() => console.log('set'), (e) => { console.error(e); process.exit(3); });`,
      { ...process.env, XDG_RUNTIME_DIR: companion.dir },
    );
    await new Promise<void>((resolve) => game.stdout!.on('data', (d) => String(d).includes('set') && resolve()));
    await waitFor(() => details() === 'Killed soon', 'the friend to see the activity');
    const elapsed = await killAndTime(game, () => details() === undefined);
    expect(elapsed).toBeLessThan(5000);
  });
});
