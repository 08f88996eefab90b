// The companion's hold on the player's session: its Gateway connection resumes after a drop
// without losing a dispatch, a refused token ends it, and a token near expiry is refreshed
// (rotation: the old one stops working) and handed back to be stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlayerGateway } from '../src/companion/PlayerGateway.ts';
import { RpcClient, type StoredToken } from '../src/index.ts';
import { type Account, type Env, signedInAccount, startCompanion, startEnv, waitFor } from './helpers.ts';

let env: Env;
let player: Account;
let mate: Account;

beforeAll(async () => {
  env = await startEnv();
  player = await signedInAccount(env, 'sess_player');
  mate = await signedInAccount(env, 'sess_mate');
});

afterAll(async () => {
  await env?.close();
});

async function gatewayUrl(): Promise<string> {
  return (await env.api('GET', '/gateway')).body.url;
}

describe('player session', () => {
  it('resumes after the socket drops, and the dispatch sent meanwhile arrives', async () => {
    const seen: string[] = [];
    const gateway = new PlayerGateway({ url: await gatewayUrl(), token: () => player.token, onDispatch: (t) => seen.push(t), onFatal: () => seen.push('FATAL'), reconnectBaseMs: 100 });
    await gateway.start();
    expect(seen[0]).toBe('READY');
    gateway.dropForResume();
    expect((await env.api('PUT', `/users/@me/relationships/${player.userId}`, mate.token, {})).status).toBe(204);
    await waitFor(() => seen.includes('RESUMED') && seen.includes('RELATIONSHIP_ADD'), 'RESUMED and the missed RELATIONSHIP_ADD');
    expect(seen.filter((t) => t === 'READY')).toHaveLength(1);
    await gateway.stop();
  });

  it('reports a refused token as fatal instead of retrying', async () => {
    let fatal: number | undefined;
    const gateway = new PlayerGateway({ url: await gatewayUrl(), token: () => 'Y'.repeat(43), onDispatch: () => {}, onFatal: (code) => (fatal = code) });
    await expect(gateway.start()).rejects.toThrow('4004');
    expect(fatal).toBe(4004);
  });

  it('refreshes a token near expiry before use and hands the new pair back', async () => {
    const account = await signedInAccount(env, 'sess_refresh');
    expect(account.stored.refresh_token).toBeTruthy();
    let saved: StoredToken[] | undefined;
    const due: StoredToken = { ...account.stored, expires_at: Date.now() + 1000 };
    const { companion, dir } = await startCompanion(env, [], { tokens: [due], onTokensRefreshed: (t) => (saved = t) });
    try {
      expect(saved).toHaveLength(1);
      expect(saved![0]!.access_token).not.toBe(account.token);
      expect(saved![0]!.refresh_token).not.toBe(account.stored.refresh_token);
      expect(saved![0]!.expires_at).toBeGreaterThan(Date.now() + 24 * 3600_000);
      expect((await env.api('GET', '/oauth2/@me', account.token)).status).toBe(401);
      // The companion works with the new token.
      const rpc = new RpcClient({ clientId: env.app.id, env: { XDG_RUNTIME_DIR: dir } });
      expect((await rpc.connect()).user.id).toBe(account.userId);
      await expect(rpc.request('SET_ACTIVITY', { pid: process.pid, activity: { details: 'Refreshed' } })).resolves.toMatchObject({ details: 'Refreshed' });
      await rpc.close();
    } finally {
      await companion.stop();
    }
  });
});
