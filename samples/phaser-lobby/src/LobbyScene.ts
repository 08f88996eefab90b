import * as Phaser from 'phaser';
import type { ClientEvents } from '@social-layer/client';
import { Avatar } from './Avatar.ts';
import { clampToWorld, decodeAvatarState, encodeAvatarState, savePosition, WORLD, type AvatarState } from './avatarState.ts';
import { lobbyUrl } from './deepLink.ts';
import { LatestOnly } from './LatestOnly.ts';
import { keepPresenceInStep } from './richPresence.ts';
import type { LobbySession } from './session.ts';

const HISTORY_LIMIT = 50;
const LOBBY_EVENTS = ['lobbyUpdated', 'lobbyMemberAdded', 'lobbyMemberUpdated', 'lobbyMemberRemoved'] as const;

/**
 * The play field. Every member of the lobby is an avatar placed where their member metadata
 * says; clicking walks your own avatar there and shares the new spot as member metadata, which
 * the others receive as `lobbyMemberUpdated`.
 */
export class LobbyScene extends Phaser.Scene {
  readonly #session: LobbySession;
  readonly #avatars = new Map<string, Avatar>();
  readonly #unsubscribe: (() => void)[] = [];
  readonly #speaking = new Set<string>();
  readonly #publish: LatestOnly<AvatarState>;
  #me: AvatarState;
  /** Resolves once `create` has run: the test hook waits on it. */
  readonly created: Promise<void>;
  #resolveCreated!: () => void;

  constructor(session: LobbySession) {
    super({ key: 'lobby' });
    this.#session = session;
    this.#me = { ...session.avatar };
    this.created = new Promise((resolve) => (this.#resolveCreated = resolve));
    // Member metadata is replaced as a whole: createOrJoinLobbyWithMetadata on a lobby we are
    // already in updates our metadata and fans it out to the other members.
    this.#publish = new LatestOnly(
      (state) => session.client.createOrJoinLobbyWithMetadata(session.secret, {}, encodeAvatarState(state)),
      (error) => console.warn('Could not share the avatar position', error),
    );
  }

  create(): void {
    const { client, lobbyId } = this.#session;
    this.#drawField();

    this.socialLayer.attach(client).showLobby(lobbyId, {
      members: { memberColor: (memberId) => this.#stateOf(memberId)?.color },
    });
    // Friends with presence and Invite buttons; an accepted invite takes the player to that lobby.
    this.socialLayer.showFriends({ toasts: { onJoin: (secret) => location.assign(lobbyUrl(secret)) } });
    this.#unsubscribe.push(keepPresenceInStep(this.#session));
    client
      .getLobbyMessagesWithLimit(lobbyId, HISTORY_LIMIT)
      .then((messages) => this.socialLayer.chat?.showMessages(messages))
      .catch((error: unknown) => console.warn('Could not load the chat history', error));

    const onLobbyChange: ClientEvents['lobbyUpdated'] = (changedLobbyId) => {
      if (changedLobbyId === lobbyId) this.#syncAvatars();
    };
    for (const event of LOBBY_EVENTS) this.#unsubscribe.push(client.on(event, onLobbyChange));
    this.#unsubscribe.push(client.on('userUpdated', () => this.#syncAvatars()));
    this.input.on(Phaser.Input.Events.POINTER_DOWN, this.#onPointerDown);
    this.events.once(Phaser.Scenes.Events.SHUTDOWN, this.#onShutdown);

    this.#syncAvatars();
    this.#resolveCreated();
  }

  /** Where a member's avatar is drawn now (mid-tween included), or undefined. */
  avatarPosition(userId: string): { x: number; y: number } | undefined {
    const avatar = this.#avatars.get(userId);
    return avatar ? { x: Math.round(avatar.x), y: Math.round(avatar.y) } : undefined;
  }

  /** Lights a member's avatar while they are heard in the call (speakingStatusChanged). */
  setSpeaking(userId: string, speaking: boolean): void {
    if (speaking) this.#speaking.add(userId);
    else this.#speaking.delete(userId);
    this.#avatars.get(userId)?.setSpeaking(speaking);
  }

  clearSpeaking(): void {
    for (const userId of [...this.#speaking]) this.setSpeaking(userId, false);
  }

  /** Whether a member's avatar shows the speaking ring now. */
  isSpeakingShown(userId: string): boolean {
    return this.#avatars.get(userId)?.speaking ?? false;
  }

  /** Walks your avatar to a world position and tells the lobby. */
  moveSelfTo(x: number, y: number): void {
    const target = clampToWorld(x, y);
    this.#me = { ...this.#me, ...target };
    this.#avatars.get(this.#session.userId)?.walkTo(target.x, target.y);
    savePosition(this.#session.secret, target);
    this.#publish.push(this.#me);
  }

  readonly #onPointerDown = (pointer: Phaser.Input.Pointer): void => {
    this.#ripple(pointer.worldX, pointer.worldY);
    this.moveSelfTo(pointer.worldX, pointer.worldY);
  };

  readonly #onShutdown = (): void => {
    for (const off of this.#unsubscribe.splice(0)) off();
    this.input.off(Phaser.Input.Events.POINTER_DOWN, this.#onPointerDown);
    this.#avatars.clear();
  };

  #stateOf(memberId: string): AvatarState | undefined {
    const member = this.#session.client.getLobbyHandle(this.#session.lobbyId)?.getLobbyMemberHandle(memberId);
    return member ? decodeAvatarState(member.metadata()) : undefined;
  }

  /** Makes the avatars match the lobby's members as the client knows them now. */
  #syncAvatars(): void {
    const { client, lobbyId, userId } = this.#session;
    const members = client.getLobbyHandle(lobbyId)?.lobbyMembers() ?? [];
    const seen = new Set<string>();
    for (const member of members) {
      seen.add(member.id);
      const isSelf = member.id === userId;
      // Our own position is whatever we last clicked; the echo of an older update must not
      // pull the avatar back.
      const state = isSelf ? this.#me : decodeAvatarState(member.metadata());
      let avatar = this.#avatars.get(member.id);
      if (!avatar) {
        avatar = new Avatar(this, member.id, state.x, state.y, isSelf);
        avatar.setSpeaking(this.#speaking.has(member.id));
        this.#avatars.set(member.id, avatar);
      } else {
        avatar.walkTo(state.x, state.y);
      }
      const user = member.user();
      avatar.setLook(user?.displayName || user?.username || 'Player', state.color, member.connected());
    }
    for (const [id, avatar] of this.#avatars) {
      if (seen.has(id)) continue;
      avatar.destroy();
      this.#avatars.delete(id);
    }
    this.socialLayer.members?.refresh();
  }

  #drawField(): void {
    const grid = this.add.graphics();
    grid.fillStyle(0x1d2335, 1).fillRoundedRect(8, 8, WORLD.width - 16, WORLD.height - 16, 18);
    grid.lineStyle(1, 0xffffff, 0.05);
    for (let x = 64; x < WORLD.width; x += 64) grid.lineBetween(x, 8, x, WORLD.height - 8);
    for (let y = 64; y < WORLD.height; y += 64) grid.lineBetween(8, y, WORLD.width - 8, y);
    grid.lineStyle(2, 0x7c9cff, 0.35).strokeRoundedRect(8, 8, WORLD.width - 16, WORLD.height - 16, 18);
    this.add
      .text(WORLD.width / 2, 28, 'Click anywhere to walk · share the URL to invite a friend', {
        fontFamily: 'system-ui, sans-serif',
        fontSize: '15px',
        color: '#9aa1b8',
      })
      .setOrigin(0.5, 0);
  }

  #ripple(x: number, y: number): void {
    const ring = this.add.circle(x, y, 10).setStrokeStyle(2, 0xffffff, 0.8);
    this.tweens.add({ targets: ring, scale: 2.4, alpha: 0, duration: 450, onComplete: () => ring.destroy() });
  }
}
