// `social-layer companion` as a player runs it: a separate process started through the server
// package's bin, with the token file rules, the device-flow sign-in, unmodified discord-rpc on
// --ipc-name discord, and hostile local clients that try to make it print the player's token.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error discord-rpc 4 has no declaration file
import DiscordRPC from 'discord-rpc';
import { encodeFrame, IpcOpcode, RpcClient, RpcErrorCode } from '../src/index.ts';
import { PageSession } from '../../../server/test/oauthHelpers.ts';
import { type Account, type Env, signedInAccount, startEnv, tempDir, tokenFile, waitFor } from './helpers.ts';

const BIN = resolve(import.meta.dirname, '../../../server/bin/social-layer.js');

let env: Env;
let player: Account;
const running: ChildProcess[] = [];

beforeAll(async () => {
  env = await startEnv();
  player = await signedInAccount(env, 'cli_player');
});

afterAll(async () => {
  for (const c of running) c.kill('SIGKILL');
  await env?.close();
});

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number>;
}

function companionProcess(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Run {
  let out = '';
  const child = spawn(process.execPath, [BIN, 'companion', ...args], {
    env: { ...process.env, XDG_RUNTIME_DIR: tempDir('sl-xdg-'), XDG_CONFIG_HOME: tempDir('sl-cfg-'), ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (out += String(d)));
  const exited = new Promise<number>((r) => child.once('exit', (code) => r(code ?? -1)));
  return { child, output: () => out, exited };
}

/**
 * SIGTERM, then the exit code. The companion installs its handlers before it prints "Companion
 * listening on", so once a test has seen that line the signal always reaches stop() (exit 0, socket
 * removed); -1 means the signal's default action killed it.
 */
async function stop(run: Run): Promise<number> {
  run.child.kill('SIGTERM');
  return run.exited;
}

describe('social-layer companion', () => {
  it('refuses a token file other users can read, and a token the server refuses, without printing it', async () => {
    const open = companionProcess(['--server', env.url, '--token-file', tokenFile([player.token], 0o644)]);
    expect(await open.exited).toBe(1);
    expect(open.output()).toContain('readable by other users');
    expect(open.output()).not.toContain(player.token);

    const bad = companionProcess(['--server', env.url, '--no-such-option']);
    expect(await bad.exited).toBe(2);
    expect(bad.output()).toContain('social-layer companion [--server URL]');

    const fake = 'X'.repeat(43);
    const refused = companionProcess(['--server', env.url, '--token-file', tokenFile([fake])]);
    expect(await refused.exited).toBe(1);
    expect(refused.output()).toContain('refused by the server');
    expect(refused.output()).not.toContain(fake);
  });

  it('serves discord-rpc on --ipc-name discord, and no local client can make it print the token', async () => {
    const runtimeDir = tempDir('sl-xdg-');
    const run = companionProcess(['--server', env.url, '--ipc-name', 'discord', '--token-file', tokenFile([player.token])], { XDG_RUNTIME_DIR: runtimeDir });
    await waitFor(() => run.output().includes('Companion listening on'), 'the companion to listen', 30_000);
    const socket = join(runtimeDir, 'discord-ipc-0');
    expect(statSync(socket).mode & 0o777).toBe(0o600);

    const saved = process.env.XDG_RUNTIME_DIR;
    process.env.XDG_RUNTIME_DIR = runtimeDir;
    try {
      const rpc = new DiscordRPC.Client({ transport: 'ipc' });
      await rpc.login({ clientId: env.app.id });
      expect(rpc.user.id).toBe(player.userId);
      await expect(rpc.setActivity({ details: 'From the CLI', buttons: [{ label: 'Site', url: 'https://example.com/' }], startTimestamp: Date.now() })).resolves.toMatchObject({ details: 'From the CLI' });
      await rpc.clearActivity();
      await rpc.destroy();
    } finally {
      if (saved === undefined) delete process.env.XDG_RUNTIME_DIR;
      else process.env.XDG_RUNTIME_DIR = saved;
    }

    // Hostile clients: everything a local client can send, aiming at the token.
    const seen: string[] = [];
    const hostile = new RpcClient({ clientId: env.app.id, path: socket });
    await hostile.connect();
    hostile.on('close', (c) => seen.push(JSON.stringify(c)));
    const attempts: [string, Record<string, unknown>, string?][] = [
      ['AUTHENTICATE', { access_token: 'not-a-token' }],
      ['AUTHENTICATE', { access_token: { $ref: 'token' } }],
      ['GET_TOKEN', {}],
      ['SET_ACTIVITY', { pid: 1, activity: { details: '${token}', state: '%s', buttons: [{ label: 'x', url: 'javascript:alert(1)' }] } }],
      ['SET_ACTIVITY', { pid: 'self', activity: { type: 4 } }],
      ['GET_GUILDS', {}],
      ['SUBSCRIBE', { guild_id: '1' }, 'GUILD_STATUS'],
      ['SEND_ACTIVITY_JOIN_INVITE', { user_id: '../../users/@me' }],
      ['AUTHORIZE', { client_id: '1', scopes: ['identify'] }],
      ['__proto__', { constructor: { prototype: { token: 1 } } }],
    ];
    for (const [cmd, args, evt] of attempts) {
      try {
        seen.push(JSON.stringify(await hostile.request(cmd, args, evt)));
      } catch (err) {
        seen.push(JSON.stringify({ code: (err as { code?: number }).code, message: (err as Error).message }));
      }
    }
    expect(seen.some((s) => s.includes(String(RpcErrorCode.InvalidToken)))).toBe(true);
    for (const frame of [Buffer.from([7, 0, 0, 0, 0, 0, 0, 0]), Buffer.from('\x01\x00\x00\x00\x05\x00\x00\x00{"a":'), encodeFrame(IpcOpcode.Handshake, { v: 1, client_id: env.app.id })]) {
      const raw = new RpcClient({ clientId: env.app.id, path: socket });
      await raw.connect();
      raw.send(IpcOpcode.Frame, { cmd: 'AUTHENTICATE', args: { access_token: 'Bearer ' }, nonce: 'n' });
      (raw as unknown as { socket: { write(b: Buffer): void } }).socket.write(frame);
      await waitFor(() => raw.closed, 'the companion to close the bad client');
      seen.push(JSON.stringify(raw.closed));
    }
    await hostile.close();

    expect(await stop(run)).toBe(0);
    expect(existsSync(socket)).toBe(false);
    expect(run.output()).toContain('listening on');
    expect(run.output()).not.toContain(player.token);
    expect(seen.join('\n')).not.toContain(player.token);
  });

  it('signs in with the device flow on first run and keeps the token in the config folder with mode 0600', async () => {
    const config = tempDir('sl-cfg-');
    const runtimeDir = tempDir('sl-xdg-');
    const socket = join(runtimeDir, 'social-layer-ipc-0');
    const run = companionProcess(['--server', env.url, '--client-id', env.app.id, '--no-browser'], { XDG_CONFIG_HOME: config, XDG_RUNTIME_DIR: runtimeDir });
    const url = await waitFor(() => /open (\S+\/activate\?user_code=\S+)/.exec(run.output())?.[1], 'the sign-in URL', 30_000);
    const page = new PageSession(env.url);
    await page.signUp('cli_newcomer');
    const code = new URL(url!).searchParams.get('user_code')!;
    const form = await page.get(`/activate?user_code=${encodeURIComponent(code)}`);
    const consent = await page.post('/activate', { csrf: PageSession.csrf(form.text), user_code: code });
    await page.post('/activate/decision', { ...PageSession.hiddenFields(consent.text), decision: 'allow' });
    await waitFor(() => run.output().includes('Companion listening on'), 'the companion to listen', 30_000);
    const file = join(config, 'social-layer', 'companion-tokens.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(config, 'social-layer')).mode & 0o777).toBe(0o700);
    expect(existsSync(socket)).toBe(true);
    expect(await stop(run)).toBe(0);
    expect(existsSync(socket)).toBe(false);

    // The next start uses the stored token: no sign-in.
    const again = companionProcess(['--server', env.url], { XDG_CONFIG_HOME: config, XDG_RUNTIME_DIR: runtimeDir });
    await waitFor(() => again.output().includes('Companion listening on'), 'the second start', 30_000);
    expect(again.output()).not.toContain('to sign in');
    expect(existsSync(socket)).toBe(true);
    expect(await stop(again)).toBe(0);
    expect(existsSync(socket)).toBe(false);
  });
});
