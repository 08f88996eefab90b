import type { Application } from 'playcanvas';
import type { SocialLayer } from '@social-layer/playcanvas';
import { GameSession } from '@social-layer/ui';
import { newAvatar } from './avatarState.ts';
import { LobbyWorld } from './LobbyWorld.ts';

/** What the sample puts on `window.__socialLayerSample`, for tests and for poking in devtools. */
export interface SampleHook extends Partial<Pick<GameSession, 'client' | 'lobbyId' | 'userId' | 'secret' | 'voice'>> {
  /** Resolves when the player is in the lobby and the world is drawn; rejects on failure. */
  ready: Promise<void>;
  session?: GameSession;
  app?: Application;
  social?: SocialLayer;
  /** An avatar's position in world units (member metadata units), mid-walk included. */
  avatarPosition(userId: string): { x: number; y: number } | undefined;
  /** A member's avatar with its name tag on the page (what panels keep clear of while they speak). */
  avatarBox(userId: string): { x: number; y: number; width: number; height: number } | undefined;
  /** Whether a member's avatar shows the speaking ring. */
  isSpeakingShown(userId: string): boolean;
  /** Page (viewport) coordinates of a world position on the ground, to click there. */
  worldToClient(x: number, y: number): { x: number; y: number } | undefined;
}

/**
 * The page global the hook lives under: the same name as in the other samples, so it is typed
 * here rather than declared on Window (every sample's sources share one type-check).
 */
export interface SampleWindow {
  __socialLayerSample: SampleHook;
}

let world: LobbyWorld | undefined;
const hook: SampleHook = {
  ready: start(),
  avatarPosition: (userId) => world?.avatarPosition(userId),
  isSpeakingShown: (userId) => world?.isSpeakingShown(userId) ?? false,
  avatarBox: (userId) => world?.avatarBox(userId),
  worldToClient: (x, y) => world?.worldToClient(x, y),
};
(window as unknown as SampleWindow).__socialLayerSample = hook;

async function start(): Promise<void> {
  const session = await GameSession.start({ game: 'playcanvasLobby', bar: document.querySelector('header')!, initialState: newAvatar });
  const { client, lobbyId, userId, secret, voice } = session;
  world = new LobbyWorld(session, document.getElementById('canvas') as HTMLCanvasElement);
  Object.assign(hook, { session, client, lobbyId, userId, secret, voice, app: world.app, social: world.social });
  // Ready once a frame is on screen.
  world.app.renderNextFrame = true;
  await new Promise<void>((resolve) => world!.app.once('frameend', () => resolve()));
}
