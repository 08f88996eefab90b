/**
 * Just enough of the Client for the component and its panels, with its listeners in plain view
 * so a test can check that none is left behind.
 */
type Listener = (...args: unknown[]) => void;

export interface FakeMember {
  id: string;
  name: string;
  connected: boolean;
}

export class FakeClient {
  readonly listeners = new Map<string, Set<Listener>>();
  readonly members = new Map<string, FakeMember>();
  readonly messages = new Map<string, { id: string; lobbyId: string; authorId: string; content: string }>();
  readonly sent: { lobbyId: string; content: string }[] = [];
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
  #user(id: string) {
    const name = this.members.get(id)?.name ?? `user ${id}`;
    return {
      id,
      username: name,
      globalName: name,
      displayName: name,
      isProvisional: true,
      status: () => 0,
      gameActivity: () => undefined,
    };
  }
  getCurrentUserV2() {
    return this.#user('1');
  }
  getUser(id: string) {
    return this.#user(id);
  }
  getLobbyHandle(lobbyId: string) {
    if (lobbyId !== '42') return undefined;
    const member = (m: FakeMember) => ({
      id: m.id,
      connected: () => m.connected,
      metadata: () => null,
      user: () => this.#user(m.id),
    });
    return {
      id: lobbyId,
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
      lobbyId: m.lobbyId,
      content: () => m.content,
      sentTimestamp: Date.UTC(2026, 0, 1, 12, 30),
    };
  }
  async sendLobbyMessage(lobbyId: string, content: string): Promise<string> {
    this.sent.push({ lobbyId, content });
    const id = String(this.#nextId++);
    this.messages.set(id, { id, lobbyId, authorId: '1', content });
    this.emit('messageCreated', id);
    return id;
  }
  // The social slice: one friend, online and playing.
  getRelationships() {
    return [this.#relationship('10')];
  }
  getRelationshipsByGroup(group: number) {
    return group === 0 ? [this.#relationship('10')] : [];
  }
  #relationship(id: string) {
    return { id, discordRelationshipType: () => 1, gameRelationshipType: () => 0, isSpamRequest: () => false, user: () => this.#user(id) };
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
