import { Activity, ActivityParty, ActivitySecrets, ActivityTimestamps, type Client } from '@social-layer/client';
import { LatestOnly } from './LatestOnly.ts';

/** Options of the rich presence the session keeps in step with its lobby. */
export interface LobbyPresenceOptions {
  /** The first line friends read. Default 'In the lobby'. */
  state?: string;
  /** The second line, from the lobby's head count. Default 'Waiting for friends' / 'N players'. */
  details?: (players: number) => string;
  /** How many players a lobby shows room for. Default 8. */
  maxPlayers?: number;
}

/**
 * Keeps the player's rich presence in step with the lobby: the lobby as the party (its size
 * follows joins and leaves) and its secret as the join secret, which is what makes the player
 * invitable (a party with an ID, room, and a join secret). Friends see it in their friends
 * panel; the secret itself only ever reaches players who accept an invite. Returns the stop.
 */
export function keepPresenceInStep(
  client: Pick<Client, 'on' | 'getLobbyHandle' | 'updateRichPresence'>,
  lobbyId: string,
  secret: string,
  options: LobbyPresenceOptions = {},
): () => void {
  const startedAt = Date.now();
  const maxPlayers = options.maxPlayers ?? 8;
  const details = options.details ?? ((n: number) => (n === 1 ? 'Waiting for friends' : `${n} players in the lobby`));
  const publish = new LatestOnly<number>(
    (players) => {
      const activity = new Activity();
      activity.setState(options.state ?? 'In the lobby');
      activity.setDetails(details(players));
      const party = new ActivityParty();
      party.setId(lobbyId);
      party.setCurrentSize(Math.min(players, maxPlayers));
      party.setMaxSize(maxPlayers);
      activity.setParty(party);
      const secrets = new ActivitySecrets();
      secrets.setJoin(secret);
      activity.setSecrets(secrets);
      const timestamps = new ActivityTimestamps();
      timestamps.setStart(startedAt);
      activity.setTimestamps(timestamps);
      return client.updateRichPresence(activity);
    },
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
