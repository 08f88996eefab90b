import { ClientStatus, type Client } from '@social-layer/client';
import { saveDisplayName } from './identity.ts';
import { LobbyWorld } from './LobbyWorld.ts';
import { joinLobby, loadConfig, type LobbySession } from './session.ts';
import { LobbyVoice } from './voice.ts';

/**
 * What the sample puts on `window.__socialLayerSample`, for tests and for poking in devtools.
 * (Read it through this type: the samples share the property name, each with its own shape.)
 */
export interface SampleHook {
  /** Resolves when the player is in the lobby and the scene is drawn; rejects on failure. */
  ready: Promise<void>;
  client?: Client;
  lobbyId?: string;
  userId?: string;
  secret?: string;
  world?: LobbyWorld;
  /** An avatar's position in world units (the 1024 x 640 field of member metadata). */
  avatarPosition(userId: string): { x: number; y: number } | undefined;
  /** The lobby's voice chat (join button, push-to-talk on V, speaking rings). */
  voice?: LobbyVoice;
  /** Whether a member's avatar shows the speaking ring. */
  isSpeakingShown(userId: string): boolean;
  /** Page (viewport) coordinates of a world position on the ground, to click there. */
  worldToClient(x: number, y: number): { x: number; y: number } | undefined;
}

const statusLine = document.getElementById('status') as HTMLElement;
let world: LobbyWorld | undefined;

const hook: SampleHook = {
  ready: start(),
  avatarPosition: (userId) => world?.avatarPosition(userId),
  isSpeakingShown: (userId) => world?.isSpeakingShown(userId) ?? false,
  worldToClient: (x, y) => world?.worldToClient(x, y),
};
(window as unknown as { __socialLayerSample: SampleHook }).__socialLayerSample = hook;
hook.ready.catch((error: unknown) => {
  console.error(error);
  statusLine.textContent = `Could not join: ${error instanceof Error ? error.message : String(error)}`;
  statusLine.classList.add('error');
});

async function start(): Promise<void> {
  const config = await loadConfig();
  const session = await joinLobby(config, (step) => (statusLine.textContent = step));
  Object.assign(hook, { client: session.client, lobbyId: session.lobbyId, userId: session.userId, secret: session.secret });

  const canvas = document.getElementById('scene') as HTMLCanvasElement;
  world = new LobbyWorld(canvas, session);
  hook.world = world;
  await world.scene.whenReadyAsync();
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
