// Our client SDK's side of the activity: the player (the access token the embedded SDK's authorize
// gave), one lobby per activity instance, member state shared latest-only, and voice in the lobby
// with push-to-talk (the UI package's VoiceChat). The platform is reached through the /platform URL
// mapping: patchUrlMappings rewrites the client's fetch and WebSocket calls to the proxy host, as
// the activity's Content-Security-Policy allows that origin only.
import { patchUrlMappings } from '@discord/embedded-app-sdk';
import { AuthorizationTokenType, Client } from '@social-layer/client';
import { LatestOnly, VoiceChat, type MemberState } from '@social-layer/ui';

export interface LobbyMember {
  id: string;
  name: string;
  connected: boolean;
  self: boolean;
  state: MemberState;
}

const LOBBY_EVENTS = ['lobbyUpdated', 'lobbyMemberAdded', 'lobbyMemberUpdated', 'lobbyMemberRemoved'] as const;

export class ActivityLobby {
  readonly client: Client;
  readonly lobbyId: string;
  readonly userId: string;
  readonly voice: VoiceChat;
  #state: MemberState;
  readonly #publish: LatestOnly<MemberState>;

  private constructor(client: Client, secret: string, lobbyId: string, userId: string, state: MemberState) {
    this.client = client;
    this.lobbyId = lobbyId;
    this.userId = userId;
    this.#state = state;
    this.voice = new VoiceChat(client, lobbyId);
    // A member's metadata is replaced as a whole by joining again with the new metadata.
    this.#publish = new LatestOnly(
      (next) => client.createOrJoinLobbyWithMetadata(secret, {}, next),
      (error) => console.warn('Could not share the avatar', error),
    );
  }

  /**
   * Connects as the authorized player and joins the instance's lobby. Everyone launched in the
   * same instance (the same voice channel, or a shared link to it) derives the same secret.
   */
  static async join(options: { platformOrigin: string; applicationId: string; accessToken: string; instanceId: string; state: MemberState }): Promise<ActivityLobby> {
    patchUrlMappings([{ prefix: '/platform', target: new URL(options.platformOrigin).host }]);
    const client = new Client({ apiBase: options.platformOrigin, applicationId: options.applicationId });
    await client.updateToken(AuthorizationTokenType.Bearer, options.accessToken);
    await client.connect();
    const me = client.getCurrentUserV2();
    if (!me) throw new Error('Connected, but the client has no current user');
    const secret = `activity-${options.instanceId}`;
    const lobbyId = await client.createOrJoinLobbyWithMetadata(secret, {}, options.state);
    return new ActivityLobby(client, secret, lobbyId, me.id, options.state);
  }

  /** This player's member state, as last set. */
  get state(): MemberState {
    return { ...this.#state };
  }

  /** Shares a new member state (the newest only, one update in flight). */
  setState(state: MemberState): void {
    this.#state = { ...state };
    this.#publish.push(this.#state);
  }

  memberState(id: string): MemberState | undefined {
    if (id === this.userId) return this.state;
    return this.client.getLobbyHandle(this.lobbyId)?.getLobbyMemberHandle(id)?.metadata();
  }

  /** The lobby's members now, this player included. */
  members(): LobbyMember[] {
    return (this.client.getLobbyHandle(this.lobbyId)?.lobbyMembers() ?? []).map((member) => {
      const user = member.user();
      const self = member.id === this.userId;
      return { id: member.id, name: user?.displayName || user?.username || 'Player', connected: member.connected(), self, state: self ? this.state : { ...(member.metadata() ?? {}) } };
    });
  }

  /** Called whenever `members()` may read differently. */
  onMembersChanged(listener: () => void): () => void {
    const onLobby = (lobbyId: string) => lobbyId === this.lobbyId && listener();
    const offs = [...LOBBY_EVENTS.map((event) => this.client.on(event, onLobby)), this.client.on('userUpdated', () => listener())];
    return () => offs.forEach((off) => off());
  }
}
