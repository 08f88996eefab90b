// Issue 19, the user and presence members against the real server: searchFriendsByUsername over
// real friendships (Levenshtein on username and display name, friends only, best first),
// getCurrentUser next to getCurrentUserV2, avatarUrl of a real user, and
// registerLaunchSteamApplication shown on an invite that arrives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AvatarType, ErrorType } from '../src/index.ts';
import { waitFor } from './helpers.ts';
import { befriend, connectPlayer, startSocialEnv, type Player, type SocialEnv } from './socialHelpers.ts';

let env: SocialEnv;
const players: Player[] = [];

beforeAll(async () => {
  env = await startSocialEnv();
});
afterAll(async () => {
  for (const p of players) await p.client.destroy();
  await env?.close();
});

async function player(name: string): Promise<Player> {
  const p = await connectPlayer(env, { name });
  players.push(p);
  return p;
}

describe('users and presence members', () => {
  it('searchFriendsByUsername finds friends by display name or username, near misses included, best first; never strangers', async () => {
    const [me, alice, alicia, bob, stranger] = await Promise.all([player('Searcher'), player('Alice Liddell'), player('Alicia Keys'), player('Bob'), player('Alice Stranger')]);
    await befriend(me, alice!, waitFor);
    await befriend(me, alicia!, waitFor);
    await befriend(bob!, me, waitFor);
    const ids = (query: string) => me.client.searchFriendsByUsername(query).map((u) => u.id);

    // Contained in the display name: both Alices, alphabetical among equals; the stranger never.
    expect(ids('ali')).toEqual([alice!.userId, alicia!.userId]);
    // Case-insensitive; the exact one first, then "Alicia" one edit away.
    expect(ids('ALICE')).toEqual([alice!.userId, alicia!.userId]);
    expect(ids('alice l')[0]).toBe(alice!.userId);
    expect(ids('alice l')).not.toContain(stranger!.userId);
    // A typo: one edit from "alice" is still Alice Liddell.
    expect(ids('alcie')).toContain(alice!.userId);
    expect(ids('alcie')).not.toContain(stranger!.userId);
    // By the unique username too.
    expect(ids(bob!.username)[0]).toBe(bob!.userId);
    expect(ids('zzzz')).toEqual([]);
    // The handles are live user views.
    expect(me.client.searchFriendsByUsername('bob')[0]!.displayName).toBe('Bob');
    expect(() => me.client.searchFriendsByUsername('')).toThrow(expect.objectContaining({ type: ErrorType.ValidationError }));
  });

  it('getCurrentUser is the signed-in user (deprecated twin of getCurrentUserV2); avatarUrl is the default avatar without a hash', async () => {
    const me = await player('Avatar Owner');
    const user = me.client.getCurrentUser();
    expect(user.id).toBe(me.userId);
    expect(user.displayName).toBe('Avatar Owner');
    expect(me.client.getCurrentUserV2()!.id).toBe(me.userId);
    const index = Number((BigInt(me.userId) >> 22n) % 6n);
    expect(user.avatarUrl(AvatarType.Gif, AvatarType.Png, 64)).toBe(`${env.url}/embed/avatars/${index}.png?size=64`);
    expect(user.userApplicationProfiles()).toEqual([]);
  });

  it('registerLaunchSteamApplication is shown on invites that arrive', async () => {
    const [host, guest] = await Promise.all([player('Steam Host'), player('Steam Guest')]);
    await befriend(host, guest, waitFor);
    expect(guest.client.registerLaunchSteamApplication(env.app.id, 1_234_560)).toBe(true);
    const invites: { steam?: string; app?: number }[] = [];
    guest.client.on('activityInviteCreated', (invite) => invites.push({ steam: invite.steamLaunchUrl(), app: invite.steamAppId() }));
    const lobbyId = await host.client.createOrJoinLobby(`steam-${Date.now()}`);
    const { Activity, ActivityParty, ActivitySecrets } = await import('../src/index.ts');
    const activity = new Activity();
    const party = new ActivityParty();
    party.setId(`party-${lobbyId}`);
    party.setCurrentSize(1);
    party.setMaxSize(4);
    activity.setParty(party);
    const secrets = new ActivitySecrets();
    secrets.setJoin(`steam-secret-${lobbyId}`);
    activity.setSecrets(secrets);
    await host.client.updateRichPresence(activity);
    await host.client.sendActivityInvite(guest.userId, 'come play');
    await waitFor(() => invites.length > 0, 'the invite');
    expect(invites[0]).toEqual({ steam: 'steam://run/1234560', app: 1_234_560 });
  });
});
