import { GameSession } from '@social-layer/ui';
import { newAvatar } from './avatarState.ts';
import { LobbyWorld } from './LobbyWorld.ts';

/**
 * What the sample puts on `window.__socialLayerSample`, for tests and for poking in devtools.
 * (Read it through this type: the samples share the property name, each with its own shape.)
 */
export interface SampleHook extends Partial<Pick<GameSession, 'client' | 'lobbyId' | 'userId' | 'secret' | 'voice'>> {
  /** Resolves when the player is in the lobby and the scene is drawn; rejects on failure. */
  ready: Promise<void>;
  session?: GameSession;
  world?: LobbyWorld;
  /** An avatar's position in world units (the 1024 x 640 field of member metadata). */
  avatarPosition(userId: string): { x: number; y: number } | undefined;
  /** A member's avatar with its name tag on the page (what panels keep clear of while they speak). */
  avatarBox(userId: string): { x: number; y: number; width: number; height: number } | undefined;
  /** Whether a member's avatar shows the speaking ring. */
  isSpeakingShown(userId: string): boolean;
  /** Page (viewport) coordinates of a world position on the ground, to click there. */
  worldToClient(x: number, y: number): { x: number; y: number } | undefined;
}

const hook: SampleHook = {
  ready: start(),
  avatarPosition: (userId) => hook.world?.avatarPosition(userId),
  isSpeakingShown: (userId) => hook.world?.isSpeakingShown(userId) ?? false,
  avatarBox: (userId) => hook.world?.avatarBox(userId),
  worldToClient: (x, y) => hook.world?.worldToClient(x, y),
};
(window as unknown as { __socialLayerSample: SampleHook }).__socialLayerSample = hook;

async function start(): Promise<void> {
  const session = await GameSession.start({
    game: 'babylonLobby',
    bar: document.querySelector('header')!,
    initialState: newAvatar,
    // Events wait for client.runCallbacks(), which the Babylon component calls before every
    // frame, so the game sees social changes inside its render loop.
    client: { queueEvents: true },
  });
  const { client, lobbyId, userId, secret, voice } = session;
  Object.assign(hook, { session, client, lobbyId, userId, secret, voice });
  hook.world = new LobbyWorld(document.getElementById('scene') as HTMLCanvasElement, session);
  await hook.world.scene.whenReadyAsync();
}
