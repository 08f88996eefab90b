/**
 * Just enough of the Client for the panels, with its listeners in plain view, so a test can
 * check that nothing stays subscribed after the app or the entity is gone. No server.
 */
type Listener = (...args: unknown[]) => void;

interface FakeMember {
  id: string;
  name: string;
  connected: boolean;
}

interface FakeMessage {
  id: string;
  lobbyId: string;
  authorId: string;
  content: string;
}

export const LOBBY_ID = '42';

export class FakeClient {
  readonly listeners = new Map<string, Set<Listener>>();
  readonly members = new Map<string, FakeMember>();
  readonly messages = new Map<string, FakeMessage>();
  readonly sent: string[] = [];
  runCallbacksCalls = 0;
  #nextId = 1000;

  on(event: string, listener: Listener): () => void {
    const set = this.listeners.get(event) ?? new Set();
    set.add(listener);
    this.listeners.set(event, set);
    return () => set.delete(listener);
  }

  emit(event: string, ...args: unknown[]): void {
    for (const listener of this.listeners.get(event) ?? []) listener(...args);
  }

  listenerCount(): number {
    let count = 0;
    for (const set of this.listeners.values()) count += set.size;
    return count;
  }

  runCallbacks(): void {
    this.runCallbacksCalls++;
  }

  getCurrentUserV2() {
    return this.#user('1');
  }

  #user(id: string) {
    const name = this.members.get(id)?.name ?? `user ${id}`;
    return {
      id,
      username: name,
      globalName: name,
      displayName: name,
      isProvisional: true,
      status: () => 1,
      gameActivity: () => undefined,
    };
  }

  getLobbyHandle(lobbyId: string) {
    if (lobbyId !== LOBBY_ID) return undefined;
    const member = (m: FakeMember) => ({
      id: m.id,
      connected: () => m.connected,
      metadata: () => null,
      canLinkLobby: () => false,
      user: () => this.#user(m.id),
    });
    return {
      id: lobbyId,
      metadata: () => null,
      lobbyMemberIds: () => [...this.members.keys()],
      lobbyMembers: () => [...this.members.values()].map(member),
      getLobbyMemberHandle: (id: string) => {
        const m = this.members.get(id);
        return m ? member(m) : undefined;
      },
    };
  }

  getMessageHandle(messageId: string) {
    const m = this.messages.get(messageId);
    if (!m) return undefined;
    return {
      id: m.id,
      authorId: m.authorId,
      author: () => this.#user(m.authorId),
      channelId: m.lobbyId,
      lobbyId: m.lobbyId,
      content: () => m.content,
      metadata: () => ({}),
      sentTimestamp: Date.UTC(2026, 0, 1, 12, 30),
    };
  }

  async sendLobbyMessage(lobbyId: string, content: string): Promise<string> {
    this.sent.push(content);
    return this.receive(lobbyId, '1', content);
  }

  /** A lobby message arrives (from `authorId`), as the Gateway would deliver it. */
  receive(lobbyId: string, authorId: string, content: string): string {
    const id = String(this.#nextId++);
    this.messages.set(id, { id, lobbyId, authorId, content });
    this.emit('messageCreated', id);
    return id;
  }

  // The social slice: an empty friends list is enough to see the panel and its listeners.
  getUser(id: string) {
    return this.#user(id);
  }
  getRelationships() {
    return [];
  }
  getRelationshipsByGroup() {
    return [];
  }
  async sendActivityInvite(): Promise<void> {}
  async acceptActivityInvite(): Promise<string> {
    return 'secret';
  }
  async sendActivityJoinRequestReply(): Promise<void> {}
  async sendDiscordFriendRequest(): Promise<void> {}
  async acceptDiscordFriendRequest(): Promise<void> {}
  async rejectDiscordFriendRequest(): Promise<void> {}
}

/** A call that records what push-to-talk asks of it. */
export class FakeCall {
  mode: number | undefined;
  readonly ptt: boolean[] = [];
  setAudioMode(mode: number): void {
    this.mode = mode;
  }
  setPTTActive(active: boolean): void {
    this.ptt.push(active);
  }
}
