// The lobby game as an activity (issue 17), inside the web app's iframe:
// 1. the unmodified @discord/embedded-app-sdk signs the player in (embedded.ts);
// 2. our client SDK joins the instance's lobby and its voice call (ActivityLobby.ts);
// 3. the Phaser scene draws the members' avatars with the plugin's chat panels (ActivityScene.ts);
// 4. Invite is shareLink, Shop is getSkus + startPurchase (store.ts), friends are getRelationships.
import type { DiscordSDK } from '@discord/embedded-app-sdk';
import { newAvatar } from '@social-layer/sample-phaser-lobby/src/avatarState.ts';
import { GameStorage } from '@social-layer/ui';
import { ActivityLobby } from './ActivityLobby.ts';
import { ActivityScene, startGame } from './ActivityScene.ts';
import { exchangeCode, isLaunched, startEmbedded } from './embedded.ts';
import { Store } from './store.ts';
import { showVoiceControls } from './voiceControls.ts';

/** What the activity puts on `window.__activity`, for tests and devtools. */
export interface ActivityHook {
  /** Resolves when the player is in the lobby and the scene is drawn. */
  ready: Promise<void>;
  sdk?: DiscordSDK;
  lobby?: ActivityLobby;
  store?: Store;
  /** The answer of the last shareLink. */
  lastShare?: unknown;
  /** Lobby members who are the player's friends (getRelationships). */
  friends: string[];
  isSpeakingShown(userId: string): boolean;
  /** Where a member's avatar is drawn now, in world units (1024 x 640). */
  avatarPosition(userId: string): { x: number; y: number } | undefined;
  /** Whether the game loop is drawing frames now (it sleeps while nothing moves). */
  isDrawing(): boolean;
  /** authorize + the code exchanged at `path` (`/api/token` or `/.proxy/api/token`): an access token. */
  exchange(path: string): Promise<string>;
}

declare global {
  interface Window {
    __activity: ActivityHook;
  }
}

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const status = (text: string, error = false) => {
  $('status').textContent = text;
  $('status').classList.toggle('error', error);
};

let scene: ActivityScene | undefined;
const hook: ActivityHook = (window.__activity = {
  ready: start(),
  friends: [],
  isSpeakingShown: (userId) => scene?.isSpeakingShown(userId) ?? false,
  avatarPosition: (userId) => scene?.avatarPosition(userId),
  isDrawing: () => scene?.game.loop.running ?? false,
  exchange: (path) => exchangeCode(hook.sdk!, hook.sdk!.clientId, path),
});
hook.ready.catch((e: unknown) => status(`Could not start: ${e instanceof Error ? e.message : JSON.stringify(e)}`, true));

/**
 * Opened as a page of its own (not framed by the web app), there is no player and no lobby: the
 * controls would do nothing, so they go, and the page says what it is and where to launch it.
 */
function explainNotLaunched(): void {
  document.querySelector('.controls')?.remove();
  $('status').remove();
  const note = document.createElement('section');
  note.id = 'not-launched';
  note.innerHTML =
    '<h2>This game is an activity</h2><p>It runs inside the Social Layer web app, beside a voice channel: open a guild\'s voice ' +
    'channel in the <a href="/app">web app</a> and press <b>Start</b> under Activities. The <a href="/">landing page</a> ' +
    'shows how to enable it for your application.</p>';
  $('game').replaceChildren(note);
}

async function start(): Promise<void> {
  if (!isLaunched()) {
    explainNotLaunched();
    return;
  }
  const embedded = await startEmbedded((text) => status(text));
  const { sdk, config, user } = embedded;
  hook.sdk = sdk;
  status('Joining the lobby…');
  const storage = new GameStorage('activityLobby', localStorageIfAllowed());
  const lobby = await ActivityLobby.join({ platformOrigin: config.platform_origin, applicationId: config.client_id, accessToken: embedded.accessToken, instanceId: sdk.instanceId, state: newAvatar(storage) });
  hook.lobby = lobby;
  document.body.dataset.lobbyId = lobby.lobbyId;
  status(`${user.global_name ?? user.username}${sdk.customId ? ' · invited' : ''}`);

  scene = new ActivityScene(lobby);
  startGame('game', scene);
  await scene.created;
  showVoiceControls(lobby.voice, $('voice'), $('talk'), $('voice-hint'));
  hook.store = new Store(sdk, $<HTMLButtonElement>('store'), $('store-panel'));

  // Invite: the host's share dialog. referrer_id is sent to show the host drops it silently.
  $('invite').addEventListener('click', async () => {
    const args = { message: 'Come play in my lobby', custom_id: `lobby-${sdk.instanceId}`.slice(0, 64), referrer_id: user.id };
    hook.lastShare = await sdk.commands.shareLink(args as never).catch((error: unknown) => ({ error: String((error as Error).message ?? error) }));
  });

  // Friends in the lobby get a mark in the header (getRelationships needs relationships.read).
  const showFriends = async () => {
    const { relationships } = await sdk.commands.getRelationships();
    const friendIds = new Set(relationships.filter((r) => r.type === 1).map((r) => r.user.id));
    const here = lobby.members().filter((m) => friendIds.has(m.id));
    hook.friends = here.map((m) => m.id);
    $('friends').textContent = here.length ? `Friends here: ${here.map((m) => m.name).join(', ')}` : '';
  };
  lobby.onMembersChanged(() => void showFriends().catch(() => {}));
  await showFriends().catch(() => {});
}

/**
 * The frame's localStorage, else a memory one: a framed page may be denied storage (third-party
 * storage blocked), and GameStorage's default would read window.localStorage and throw.
 */
function localStorageIfAllowed(): Storage {
  try {
    return window.localStorage;
  } catch {
    const memory = new Map<string, string>();
    return {
      getItem: (key) => memory.get(key) ?? null,
      setItem: (key, value) => void memory.set(key, String(value)),
      removeItem: (key) => void memory.delete(key),
      clear: () => memory.clear(),
      key: (index) => [...memory.keys()][index] ?? null,
      get length() {
        return memory.size;
      },
    };
  }
}
