import { ClientStatus, type Client } from '@social-layer/client';
import type { Application } from 'playcanvas';
import type { SocialLayer } from '@social-layer/playcanvas';
import { saveDisplayName } from './identity.ts';
import { LobbyWorld } from './LobbyWorld.ts';
import { joinLobby, loadConfig, type LobbySession } from './session.ts';
import { LobbyVoice } from './voice.ts';

/** What the sample puts on `window.__socialLayerSample`, for tests and for poking in devtools. */
export interface SampleHook {
  /** Resolves when the player is in the lobby and the world is drawn; rejects on failure. */
  ready: Promise<void>;
  client?: Client;
  lobbyId?: string;
  userId?: string;
  secret?: string;
  app?: Application;
  social?: SocialLayer;
  /** An avatar's position in world units (member metadata units), mid-walk included. */
  avatarPosition(userId: string): { x: number; y: number } | undefined;
  /** The lobby's voice chat (join button, push-to-talk on V, speaking rings). */
  voice?: LobbyVoice;
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

const statusLine = document.getElementById('status') as HTMLElement;
let world: LobbyWorld | undefined;

const hook: SampleHook = {
  ready: start(),
  avatarPosition: (userId) => world?.avatarPosition(userId),
  isSpeakingShown: (userId) => world?.isSpeakingShown(userId) ?? false,
  worldToClient: (x, y) => world?.worldToClient(x, y),
};
(window as unknown as SampleWindow).__socialLayerSample = hook;
hook.ready.catch((error: unknown) => {
  console.error(error);
  statusLine.textContent = `Could not join: ${error instanceof Error ? error.message : String(error)}`;
  statusLine.classList.add('error');
});

async function start(): Promise<void> {
  const config = await loadConfig();
  const session = await joinLobby(config, (step) => (statusLine.textContent = step));
  Object.assign(hook, { client: session.client, lobbyId: session.lobbyId, userId: session.userId, secret: session.secret });

  world = new LobbyWorld(session, document.getElementById('canvas') as HTMLCanvasElement);
  Object.assign(hook, { app: world.app, social: world.social });
  // Ready once a frame is on screen.
  world.app.renderNextFrame = true;
  await new Promise<void>((resolve) => world!.app.once('frameend', () => resolve()));
  statusLine.textContent = '';
  setUpHeader(session);
  hook.voice = new LobbyVoice(
    session,
    world,
    document.getElementById('voice') as HTMLButtonElement,
    document.getElementById('voice-hint') as HTMLElement,
  );
  // The client reconnects by itself; the player should still know when the lobby is stale.
  session.client.on('statusChanged', (status) => {
    statusLine.textContent =
      status === ClientStatus.Ready ? '' : status === ClientStatus.Disconnected ? 'Disconnected' : 'Reconnecting…';
  });
}

/** The name field and the invite button in the page header. */
function setUpHeader({ client }: LobbySession): void {
  const form = document.getElementById('name-form') as HTMLFormElement;
  const input = document.getElementById('name-input') as HTMLInputElement;
  const invite = document.getElementById('invite') as HTMLButtonElement;
  const you = document.getElementById('you') as HTMLElement;
  you.textContent = `@${client.getCurrentUserV2()?.username ?? ''}`;
  you.hidden = false;
  input.value = client.getCurrentUserV2()?.displayName ?? '';
  form.hidden = false;
  invite.hidden = false;

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const name = input.value.trim();
    if (!name) return;
    input.disabled = true;
    client
      .updateProvisionalAccountDisplayName(name)
      .then(() => {
        saveDisplayName(name);
        input.blur();
      })
      .catch((error: unknown) => {
        statusLine.textContent = `Could not rename: ${error instanceof Error ? error.message : String(error)}`;
      })
      .finally(() => (input.disabled = false));
  });
  // Keys typed in the header are not game input (pc.Keyboard listens on the window).
  input.addEventListener('keydown', (event) => event.stopPropagation());
  input.addEventListener('keyup', (event) => event.stopPropagation());

  invite.addEventListener('click', () => {
    void navigator.clipboard?.writeText(location.href).then(
      () => flash(invite, 'Link copied!'),
      () => flash(invite, 'Copy the address bar'),
    );
  });
}

function flash(button: HTMLButtonElement, text: string): void {
  const original = button.textContent;
  button.textContent = text;
  setTimeout(() => (button.textContent = original), 1500);
}
