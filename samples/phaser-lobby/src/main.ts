import * as Phaser from 'phaser';
import { SocialLayerPlugin } from '@social-layer/phaser';
import { GameSession } from '@social-layer/ui';
import { newAvatar, WORLD } from './avatarState.ts';
import { LobbyScene } from './LobbyScene.ts';
import { LinkChannelPanel } from './LinkChannelPanel.ts';

/** What the sample puts on `window.__socialLayerSample`, for tests and for poking in devtools. */
export interface SampleHook extends Partial<Pick<GameSession, 'client' | 'lobbyId' | 'userId' | 'secret' | 'voice'>> {
  /** Resolves when the player is in the lobby and the scene is drawn; rejects on failure. */
  ready: Promise<void>;
  session?: GameSession;
  game?: Phaser.Game;
  /** An avatar's drawn position in world units. */
  avatarPosition(userId: string): { x: number; y: number } | undefined;
  /** A member's avatar with its name tag on the page (what panels keep clear of while they speak). */
  avatarBox(userId: string): { x: number; y: number; width: number; height: number } | undefined;
  /** Whether a member's avatar shows the speaking ring. */
  isSpeakingShown(userId: string): boolean;
  /** Whether the game loop is drawing frames now (it sleeps while nothing moves). */
  isDrawing(): boolean;
  /** Page (viewport) coordinates of a world position, to click there. */
  worldToClient(x: number, y: number): { x: number; y: number } | undefined;
  /** The hint text's box on the page (kept in the overlay's safe area). */
  hintBox(): { x: number; y: number; width: number; height: number } | undefined;
}

declare global {
  interface Window {
    __socialLayerSample: SampleHook;
  }
}

let scene: LobbyScene | undefined;
const hook: SampleHook = (window.__socialLayerSample = {
  ready: start(),
  avatarPosition: (userId) => scene?.avatarPosition(userId),
  isSpeakingShown: (userId) => scene?.isSpeakingShown(userId) ?? false,
  avatarBox: (userId) => scene?.avatarBox(userId),
  isDrawing: () => scene?.drawing ?? false,
  hintBox: () => scene?.hintBox(),
  worldToClient(x, y) {
    const rect = hook.game?.canvas.getBoundingClientRect();
    return rect && { x: rect.left + (x / WORLD.width) * rect.width, y: rect.top + (y / WORLD.height) * rect.height };
  },
});

async function start(): Promise<void> {
  const session = await GameSession.start({
    game: 'phaserLobby',
    bar: document.querySelector('header')!,
    initialState: newAvatar,
  });
  const { client, lobbyId, userId, secret, voice } = session;
  Object.assign(hook, { session, client, lobbyId, userId, secret, voice });
  // Signed-in players may link the lobby's chat to a channel of a server they manage (issue 12).
  new LinkChannelPanel(client, lobbyId, document.querySelector('header')!);
  scene = new LobbyScene(session);
  hook.game = new Phaser.Game({
    type: Phaser.AUTO,
    parent: 'game',
    width: WORLD.width,
    height: WORLD.height,
    backgroundColor: '#12151f',
    scale: { mode: Phaser.Scale.FIT, autoCenter: Phaser.Scale.CENTER_BOTH },
    plugins: { scene: [SocialLayerPlugin.sceneConfig()] },
    scene: [scene],
  });
  await scene.created;
}
