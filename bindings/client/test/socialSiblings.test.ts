// Sibling applications (publisher-level linking, `applications.parent_id` from the accounts
// slice): invites and direct messages sent from one game of a family reach the recipient in every
// game of it and say which application sent them (ActivityInvite.applicationId,
// MessageHandle.applicationId).
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Activity, ActivityInvite, ActivityParty, ActivitySecrets } from '../src/index.ts';
import { newSecret, waitFor } from './helpers.ts';
import { befriend, connectPlayer, eventsOf, startSocialEnv, type Player, type SocialEnv } from './socialHelpers.ts';

let env: SocialEnv;
const players: Player[] = [];

beforeAll(async () => {
  env = await startSocialEnv();
});
afterAll(async () => {
  for (const p of players) await p.client.destroy();
  await env?.close();
});

async function player(name: string, opts: Parameters<typeof connectPlayer>[1] = {}): Promise<Player> {
  const p = await connectPlayer(env, { name, ...opts });
  players.push(p);
  return p;
}

async function hostParty(p: Player): Promise<{ lobbyId: string; secret: string }> {
  const secret = newSecret();
  const lobbyId = await p.client.createOrJoinLobby(secret);
  const activity = new Activity();
  const party = new ActivityParty();
  party.setId(`party-${lobbyId}`);
  party.setCurrentSize(1);
  party.setMaxSize(4);
  activity.setParty(party);
  const secrets = new ActivitySecrets();
  secrets.setJoin(secret);
  activity.setSecrets(secrets);
  await p.client.updateRichPresence(activity);
  return { lobbyId, secret };
}

function invitesOf(p: Player): ActivityInvite[] {
  return eventsOf(p, 'activityInviteCreated').map(([i]) => i as ActivityInvite);
}

describe('sibling applications', { timeout: 30_000 }, () => {
  it('invites from a sibling application carry its applicationId', async () => {
    const parent = env.app.id;
    const sibling = await env.server.createApplication({ name: 'Sibling Game' });
    await sql`update applications set parent_id = ${parent} where id = ${sibling.id}`.execute(env.server.store.database.db);
    const host = await player('Sia');
    const friend = await player('Sib');
    await befriend(host, friend, waitFor);
    // The friend is playing the sibling game (same account, the sibling's token).
    const friendInSibling = await player('Sib', { token: await env.server.store.tokens.issue(friend.userId, sibling.id, ['sdk.social_layer'], 3600) });
    const hostInSibling = await player('Sia', { token: await env.server.store.tokens.issue(host.userId, sibling.id, ['sdk.social_layer'], 3600) });
    const { secret } = await hostParty(hostInSibling);
    await hostInSibling.client.sendActivityInvite(friend.userId, 'from the sibling');
    // Delivered in both games of the family, labelled with the sending application.
    for (const p of [friend, friendInSibling]) {
      const invite = await waitFor(() => invitesOf(p).find((i) => i.content() === 'from the sibling'), 'the sibling invite');
      expect(invite.applicationId()).toBe(sibling.id);
      expect(invite.parentApplicationId()).toBe(parent);
    }
    const invite = invitesOf(friend).find((i) => i.content() === 'from the sibling')!;
    expect(await friend.client.acceptActivityInvite(invite)).toBe(secret);

    // DMs from the sibling show its applicationId too.
    const id = await friendInSibling.client.sendUserMessage(host.userId, 'hi from the sibling game');
    await waitFor(() => host.client.getMessageHandle(id), 'the DM in the parent game');
    expect(host.client.getMessageHandle(id)?.applicationId).toBe(sibling.id);
  });
});
