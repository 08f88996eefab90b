import type { LobbyState } from '@social-layer/core-wasm';
import type { User } from '@social-layer/protocol';
import { MessageCache } from './MessageCache.ts';
import type { UserApplicationProfileWire } from './UserApplicationProfileHandle.ts';
import type { VoiceStates } from './voice/VoiceStates.ts';
import { SocialState } from './social/SocialState.ts';
import type { LinkedChannel } from './lobbies/linkedChannelTypes.ts';

/**
 * Everything the handles read, in one object they share with the Client: lobby state in
 * core-wasm's LobbyState, and beside it in JS the user objects, lobby additional names and the
 * message cache (the WASM side deals in IDs and flags, not in display strings).
 * Once `destroyed`, handles answer default values instead of failing, as the spec requires.
 */
export class ClientState {
  lobbies: LobbyState | undefined;
  selfId: string | undefined;
  destroyed = false;
  readonly users = new Map<string, User>();
  /** `${lobbyId}:${memberId}` -> additional_name. */
  readonly additionalNames = new Map<string, string>();
  /** Who is in which lobby's call (set by the Client; LobbyHandle.getCallInfoHandle reads it). */
  voiceStates: VoiceStates | undefined;
  readonly messages = new MessageCache();
  /** Lobby ID -> its linked guild channel, from the lobby objects (issue 12). */
  readonly linkedChannels = new Map<string, LinkedChannel>();
  /** Relationships, presences, own status and the DM conversation cache (issue 6). */
  readonly social = new SocialState();
  /** Game profiles of users' external identities (`user.application_profiles`), by user ID. */
  readonly applicationProfiles = new Map<string, UserApplicationProfileWire[]>();
  /** Where avatar images live (UserHandle.avatarUrl): the platform's API origin. */
  cdnBase = '';

  /** The lobby state, if there is one and the lobby is in it. */
  lobbyState(lobbyId: string): LobbyState | undefined {
    if (this.destroyed || !this.lobbies || !this.lobbies.has(lobbyId)) return undefined;
    return this.lobbies;
  }

  isMember(lobbyId: string, memberId: string): boolean {
    const state = this.lobbyState(lobbyId);
    return state !== undefined && state.memberIds(lobbyId).includes(memberId);
  }

  user(userId: string): User | undefined {
    return this.destroyed ? undefined : this.users.get(userId);
  }

  /** Stores `user`; returns whether anything a UserHandle shows changed. */
  rememberUser(user: User): boolean {
    const previous = this.users.get(user.id);
    this.users.set(user.id, { ...previous, ...user });
    const profiles = (user as User & { application_profiles?: UserApplicationProfileWire[] }).application_profiles;
    if (Array.isArray(profiles)) this.applicationProfiles.set(user.id, profiles);
    return (
      previous !== undefined &&
      (previous.username !== user.username ||
        previous.global_name !== user.global_name ||
        previous.avatar !== user.avatar ||
        previous.is_provisional !== user.is_provisional)
    );
  }

  setAdditionalName(lobbyId: string, memberId: string, name: string | null | undefined): void {
    const key = `${lobbyId}:${memberId}`;
    if (name) this.additionalNames.set(key, name);
    else this.additionalNames.delete(key);
  }

  additionalName(lobbyId: string, memberId: string): string | undefined {
    return this.destroyed ? undefined : this.additionalNames.get(`${lobbyId}:${memberId}`);
  }

  forgetLobby(lobbyId: string): void {
    this.linkedChannels.delete(lobbyId);
    const prefix = `${lobbyId}:`;
    for (const key of [...this.additionalNames.keys()]) if (key.startsWith(prefix)) this.additionalNames.delete(key);
  }
}
