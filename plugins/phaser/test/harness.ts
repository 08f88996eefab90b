/**
 * Runs in Chromium (bundled by lifecycle.test.ts): a Phaser game with the plugin installed and
 * a fake client that records its listeners, so the test can drive the scene lifecycle and
 * check what the plugin leaves behind.
 */
import * as Phaser from 'phaser';
import { SocialLayerPlugin, type PluginClient } from '../src/index.ts';

type Listener = (...args: string[]) => void;

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

/** Just enough of the Client for the panels, with its listeners in plain view. */
class FakeClient {
  readonly listeners = new Map<string, Set<Listener>>();
  readonly members = new Map<string, FakeMember>();
  readonly messages = new Map<string, FakeMessage>();
  readonly sent: { lobbyId: string; content: string }[] = [];
  runCallbacksCalls = 0;
  #nextId = 1000;

  on(event: string, listener: Listener): () => void {
    const set = this.listeners.get(event) ?? new Set();
    set.add(listener);
    this.listeners.set(event, set);
    return () => set.delete(listener);
  }
  emit(event: string, ...args: string[]): void {
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
    return { id, username: name, globalName: name, displayName: name, isProvisional: true };
  }
  getLobbyHandle(lobbyId: string) {
    if (lobbyId !== '42') return undefined;
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
    this.sent.push({ lobbyId, content });
    const id = String(this.#nextId++);
    this.messages.set(id, { id, lobbyId, authorId: '1', content });
    this.emit('messageCreated', id);
    return id;
  }

  // ---- the social slice (friends panel and invite toasts) ----
  readonly friends = new Map<string, { name: string; status: number; group: number; relationship: number; state?: string }>();
  readonly invitesSent: string[] = [];
  readonly accepted: string[] = [];
  #friendUser(id: string) {
    const f = this.friends.get(id);
    const name = f?.name ?? `user ${id}`;
    return {
      id,
      username: name,
      globalName: name,
      displayName: name,
      isProvisional: true,
      status: () => f?.status ?? 1,
      gameActivity: () =>
        f?.state
          ? { name: () => 'Test Game', state: () => f.state, details: () => undefined, party: () => ({ currentSize: () => 2, maxSize: () => 4 }) }
          : undefined,
    };
  }
  #relationship(id: string) {
    return {
      id,
      discordRelationshipType: () => this.friends.get(id)?.relationship ?? 0,
      gameRelationshipType: () => 0,
      isSpamRequest: () => false,
      user: () => this.#friendUser(id),
    };
  }
  getUser(id: string) {
    return this.#friendUser(id);
  }
  getRelationships() {
    return [...this.friends.keys()].map((id) => this.#relationship(id));
  }
  getRelationshipsByGroup(group: number) {
    return [...this.friends.entries()].filter(([, f]) => f.relationship === 1 && f.group === group).map(([id]) => this.#relationship(id));
  }
  async sendActivityInvite(userId: string): Promise<void> {
    this.invitesSent.push(userId);
  }
  async acceptActivityInvite(invite: { messageId(): string }): Promise<string> {
    this.accepted.push(invite.messageId());
    return `secret-of-${invite.messageId()}`;
  }
  async sendActivityJoinRequestReply(): Promise<void> {}
  async sendDiscordFriendRequest(): Promise<void> {}
  async acceptDiscordFriendRequest(userId: string): Promise<void> {
    const f = this.friends.get(userId);
    if (f) f.relationship = 1;
    this.emit('relationshipCreated', userId);
  }
  async rejectDiscordFriendRequest(): Promise<void> {}
  /** Emits with any arguments (invites are objects, not IDs). */
  emitAny(event: string, ...args: unknown[]): void {
    for (const listener of this.listeners.get(event) ?? []) (listener as (...a: unknown[]) => void)(...args);
  }
}

class TestScene extends Phaser.Scene {
  constructor() {
    super({ key: 'test' });
  }
  create(data: { pump?: boolean }): void {
    this.socialLayer.attach(harness.client as unknown as PluginClient, { pumpCallbacks: data.pump ?? false });
    this.socialLayer.showLobby('42');
    this.socialLayer.showFriends({ toasts: { onJoin: (secret) => void harness.joined.push(secret) } });
  }
}

const client = new FakeClient();
client.members.set('1', { id: '1', name: 'Ada', connected: true });
client.members.set('2', { id: '2', name: 'Grace', connected: false });

const harness = {
  client,
  game: undefined as Phaser.Game | undefined,
  joined: [] as string[],
  booted: undefined as Promise<void> | undefined,
  scene(): TestScene {
    return harness.game?.scene.getScene('test') as TestScene;
  },
};
(window as unknown as { harness: typeof harness }).harness = harness;

const parent = document.createElement('div');
parent.id = 'game';
parent.style.cssText = 'width: 800px; height: 600px';
document.body.append(parent);
harness.booted = new Promise((resolve) => {
  harness.game = new Phaser.Game({
    type: Phaser.CANVAS,
    parent,
    width: 800,
    height: 600,
    plugins: { scene: [SocialLayerPlugin.sceneConfig()] },
    scene: [TestScene],
    callbacks: { postBoot: () => resolve() },
  });
});
