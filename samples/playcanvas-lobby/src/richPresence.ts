import { Activity, ActivityParty, ActivitySecrets, ActivityTimestamps } from '@social-layer/client';
import { LatestOnly } from './LatestOnly.ts';
import type { LobbySession } from './session.ts';

/** How many players a lobby shows room for. */
export const MAX_PLAYERS = 8;

/**
 * Keeps the player's rich presence in step with the lobby: "In the lobby, N of 8", with the
 * lobby as the party and its secret as the join secret, which is what makes the player
 * invitable (a party with an ID, room, and a join secret). Friends see it in their friends
 * panel; the secret itself only ever reaches players who accept an invite.
 */
export function keepPresenceInStep(session: LobbySession): () => void {
  const { client, lobbyId, secret } = session;
  const startedAt = Date.now();
  const publish = new LatestOnly<number>(
    (players) => client.updateRichPresence(activityFor(lobbyId, secret, players, startedAt)),
    (error) => console.warn('Could not update rich presence', error),
  );
  const count = () => client.getLobbyHandle(lobbyId)?.lobbyMemberIds().length ?? 1;
  publish.push(count());
  const onChange = (changedLobbyId: string) => {
    if (changedLobbyId === lobbyId) publish.push(count());
  };
  const offs = [client.on('lobbyMemberAdded', onChange), client.on('lobbyMemberRemoved', onChange)];
  return () => offs.forEach((off) => off());
}

function activityFor(lobbyId: string, secret: string, players: number, startedAt: number): Activity {
  const activity = new Activity();
  activity.setState('In the lobby');
  activity.setDetails(players === 1 ? 'Waiting for friends' : `${players} players walking around`);
  const party = new ActivityParty();
  party.setId(lobbyId);
  party.setCurrentSize(Math.min(players, MAX_PLAYERS));
  party.setMaxSize(MAX_PLAYERS);
  activity.setParty(party);
  const secrets = new ActivitySecrets();
  secrets.setJoin(secret);
  activity.setSecrets(secrets);
  const timestamps = new ActivityTimestamps();
  timestamps.setStart(startedAt);
  activity.setTimestamps(timestamps);
  return activity;
}
