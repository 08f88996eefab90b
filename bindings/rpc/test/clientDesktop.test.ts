// Our SDK's desktop side in Node: the Client asks the local companion for the player's desktop
// identity (getDiscordClientConnectedUser), tells whether one is installed (a socket exists),
// and a game without a Gateway session of its own shows rich presence through it (also through
// updateRichPresence before connect, cleared when the Client connects, as the native SDK does).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Activity, AuthorizationTokenType, Client, ErrorType } from '@social-layer/client';
import { ipcDesktopCompanion } from '@social-layer/client/desktop';
import { type Account, befriend, type Env, signedInAccount, startCompanion, startEnv, waitFor } from './helpers.ts';

let env: Env;
let player: Account;
let friendClient: Client;
let companion: Awaited<ReturnType<typeof startCompanion>>;

beforeAll(async () => {
  env = await startEnv();
  player = await signedInAccount(env, 'desk_player');
  const friend = await signedInAccount(env, 'desk_friend');
  await befriend(env, player, friend);
  companion = await startCompanion(env, [player.token]);
  friendClient = new Client({ apiBase: env.url });
  await friendClient.updateToken(AuthorizationTokenType.Bearer, friend.token);
  await friendClient.connect();
});

afterAll(async () => {
  await friendClient?.destroy();
  await companion?.companion.stop();
  await env?.close();
});

describe('Client with the desktop companion', () => {
  it('reads the player signed in to the companion, and whether one is installed', async () => {
    const desktop = ipcDesktopCompanion({ env: { XDG_RUNTIME_DIR: companion.dir } });
    const game = new Client({ apiBase: env.url, desktopCompanion: desktop });
    try {
      expect(await game.isDiscordAppInstalled()).toBe(true);
      const user = await game.getDiscordClientConnectedUser(env.app.id);
      expect(user?.id).toBe(player.userId);
      expect(user?.username).toBe('desk_player');
      // An application the player has not signed in to on this companion: nobody.
      const other = await env.server.createApplication({ name: 'Other Game' });
      expect(await game.getDiscordClientConnectedUser(other.id)).toBeUndefined();
    } finally {
      await desktop.close();
      await game.destroy();
    }
  });

  it('finds nothing where no companion runs', async () => {
    const desktop = ipcDesktopCompanion({ env: { XDG_RUNTIME_DIR: env.runtimeDir() } });
    const game = new Client({ apiBase: env.url, desktopCompanion: desktop });
    expect(await game.isDiscordAppInstalled()).toBe(false);
    expect(await game.getDiscordClientConnectedUser(env.app.id)).toBeUndefined();
    await game.destroy();
    // And without the option at all (browsers): false.
    const plain = new Client({ apiBase: env.url });
    expect(await plain.isDiscordAppInstalled()).toBe(false);
    await plain.destroy();
  });

  it('shows rich presence through the companion, without a Gateway session of its own', async () => {
    const desktop = ipcDesktopCompanion({ env: { XDG_RUNTIME_DIR: companion.dir } });
    const seen = () => friendClient.getUser(player.userId)?.gameActivity()?.details();
    await desktop.setActivity(env.app.id, { details: 'Through the desktop', buttons: [{ label: 'Play', url: 'https://example.com/play' }] });
    await waitFor(() => seen() === 'Through the desktop', 'the friend to see the activity');
    await desktop.setActivity(env.app.id, null);
    await waitFor(() => seen() === undefined, 'the activity to be cleared');
    await desktop.close();
  });

  it('updateRichPresence before connect goes through the companion, and is cleared when the Client connects', async () => {
    const seen = () => friendClient.getUser(player.userId)?.gameActivity()?.details();
    const activity = (details: string) => {
      const a = new Activity();
      a.setDetails(details);
      return a;
    };
    // Without a companion the Client needs its own session, as before.
    const plain = new Client({ apiBase: env.url, applicationId: env.app.id });
    await expect(plain.updateRichPresence(activity('Nowhere'))).rejects.toMatchObject({ type: ErrorType.ClientNotReady });
    await plain.destroy();

    const desktop = ipcDesktopCompanion({ env: { XDG_RUNTIME_DIR: companion.dir } });
    const game = new Client({ apiBase: env.url, applicationId: env.app.id, desktopCompanion: desktop });
    try {
      await game.updateRichPresence(activity('Before connect'));
      await waitFor(() => seen() === 'Before connect', 'the friend to see the activity set through the companion');
      await game.updateToken(AuthorizationTokenType.Bearer, player.token);
      await game.connect();
      await waitFor(() => seen() === undefined, 'the activity to be cleared when the Client connects');
      // From now on the Client's own session carries presence.
      await game.updateRichPresence(activity('Own session'));
      await waitFor(() => seen() === 'Own session', 'the activity of the Client itself');
    } finally {
      await game.destroy();
      await desktop.close();
    }
  });
});
