// Unmodified public RPC libraries against the companion started with --ipc-name discord in a
// temporary XDG_RUNTIME_DIR: connect (HANDSHAKE, READY), set an activity with buttons and
// timestamps, clear it; a friend connected with our SDK sees the presence and then its removal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthorizationTokenType, Client, type UserHandle } from '@social-layer/client';
import { Client as XhayperClient } from '@xhayper/discord-rpc';
// discord-rpc 4 is CommonJS with no types.
// @ts-expect-error no declaration file
import DiscordRPC from 'discord-rpc';
import { type Account, befriend, type Env, signedInAccount, startCompanion, startEnv, waitFor } from './helpers.ts';

let env: Env;
let player: Account;
let friend: Account;
let friendClient: Client;
let companion: Awaited<ReturnType<typeof startCompanion>>;
const savedRuntimeDir = process.env.XDG_RUNTIME_DIR;

beforeAll(async () => {
  env = await startEnv();
  player = await signedInAccount(env, 'rpc_player');
  friend = await signedInAccount(env, 'rpc_friend');
  await befriend(env, player, friend);
  companion = await startCompanion(env, [player.token], { ipcName: 'discord' });
  // The libraries find the socket the way they find Discord's: from the environment.
  process.env.XDG_RUNTIME_DIR = companion.dir;
  friendClient = new Client({ apiBase: env.url });
  await friendClient.updateToken(AuthorizationTokenType.Bearer, friend.token);
  await friendClient.connect();
});

afterAll(async () => {
  if (savedRuntimeDir === undefined) delete process.env.XDG_RUNTIME_DIR;
  else process.env.XDG_RUNTIME_DIR = savedRuntimeDir;
  await friendClient?.destroy();
  await companion?.companion.stop();
  await env?.close();
});

/** The player as the friend's SDK sees them. */
const seen = (): UserHandle | undefined => friendClient.getUser(player.userId);
const seenActivity = () => seen()?.gameActivity();

const start = Date.now() - 5 * 60_000;
const end = Date.now() + 55 * 60_000;
const buttons = [
  { label: 'Watch the match', url: 'https://example.com/watch' },
  { label: 'Join the clan', url: 'https://example.com/clan' },
];

async function expectFriendSeesActivity(details: string): Promise<void> {
  const a = await waitFor(() => (seenActivity()?.details() === details ? seenActivity() : undefined), `the friend to see "${details}"`);
  expect(a!.state()).toBe('In a party of 2');
  expect(a!.applicationId()).toBe(env.app.id);
  expect(a!.timestamps()?.start()).toBe(start);
  expect(a!.timestamps()?.end()).toBe(end);
  expect(a!.getButtons().map((b) => [b.label(), b.url()])).toEqual(buttons.map((b) => [b.label, b.url]));
  expect(a!.assets()?.largeImage()).toBe('map_dunes');
  expect(a!.party()?.currentSize()).toBe(2);
  expect(a!.party()?.maxSize()).toBe(4);
  // The join secret stays with the player's own sessions.
  expect(a!.secrets()).toBeUndefined();
}

/** Cleared: the game's own fields are gone (while the game is connected, friends see "Playing <app>"). */
async function expectFriendSeesRemoval(): Promise<void> {
  await waitFor(() => {
    const a = seenActivity();
    return a === undefined || (a.details() === undefined && a.state() === undefined && a.getButtons().length === 0);
  }, 'the friend to see the activity removed');
}

describe('discord-rpc 4', () => {
  it('connects, sets an activity with buttons and timestamps, clears it; the friend sees both', async () => {
    const rpc = new DiscordRPC.Client({ transport: 'ipc' });
    await rpc.login({ clientId: env.app.id });
    expect(rpc.user.id).toBe(player.userId);
    expect(rpc.user.username).toBe('rpc_player');
    const answer = await rpc.setActivity({
      details: 'Ranked on Dunes',
      state: 'In a party of 2',
      startTimestamp: new Date(start),
      endTimestamp: end,
      largeImageKey: 'map_dunes',
      largeImageText: 'Dunes',
      partyId: 'party-1',
      partySize: 2,
      partyMax: 4,
      joinSecret: 'join-secret-1',
      buttons,
      instance: false,
    });
    expect(answer).toMatchObject({ details: 'Ranked on Dunes', application_id: env.app.id, buttons });
    await expectFriendSeesActivity('Ranked on Dunes');
    await rpc.clearActivity();
    await expectFriendSeesRemoval();
    await rpc.destroy();
    // The game left: the player is no longer in this application.
    await waitFor(() => seenActivity() === undefined, 'the player to leave the game');
  });
});

describe('@xhayper/discord-rpc 1', () => {
  it('connects, sets an activity with buttons and timestamps, clears it; the friend sees both', async () => {
    const rpc = new XhayperClient({ clientId: env.app.id });
    await rpc.connect();
    expect(rpc.user?.id).toBe(player.userId);
    await rpc.user!.setActivity({
      type: 0,
      details: 'Casual on Dunes',
      state: 'In a party of 2',
      startTimestamp: new Date(start),
      endTimestamp: end,
      largeImageKey: 'map_dunes',
      partyId: 'party-2',
      partySize: 2,
      partyMax: 4,
      buttons,
    });
    await expectFriendSeesActivity('Casual on Dunes');
    await rpc.user!.clearActivity();
    await expectFriendSeesRemoval();
    await rpc.destroy();
    await waitFor(() => seenActivity() === undefined, 'the player to leave the game');
  });

  it('authenticates with an access token the game already holds (AUTHENTICATE), then reads the player', async () => {
    const rpc = new XhayperClient({ clientId: env.app.id });
    await rpc.login({ scopes: ['identify', 'guilds'], accessToken: player.token });
    expect(rpc.application?.id).toBe(env.app.id);
    expect(rpc.user?.id).toBe(player.userId);
    await rpc.destroy();
  });
});
