// @vitest-environment happy-dom
/**
 * The adapter in a real PlayCanvas Application, in Node: happy-dom gives it a page, and a
 * NullGraphicsDevice stands in for WebGL, so the app runs its real update and destroy paths
 * (frames are driven with `app.tick`). A fake client counts its listeners. Checks: panels render
 * from client events, `update` pumps `runCallbacks` only when asked, push-to-talk follows the
 * key, and app destroy, entity destroy and script removal leave no listener and no DOM behind.
 */
import * as pc from 'playcanvas';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SocialLayer, SocialLayerScript, type PluginClient } from '../src/index.ts';
import { FakeCall, FakeClient, LOBBY_ID } from './fakeClient.ts';

interface Rig {
  app: pc.Application;
  parent: HTMLElement;
  client: FakeClient;
  frame(): void;
}

const rigs: Rig[] = [];

function makeRig(): Rig {
  const parent = document.createElement('div');
  parent.id = 'game';
  const canvas = document.createElement('canvas');
  parent.append(canvas);
  document.body.append(parent);
  // The engine's debug build (the 'development' export vitest picks) greets on the console.
  const greeting = vi.spyOn(console, 'log').mockImplementation(() => {});
  const app = new pc.Application(canvas, {
    graphicsDevice: new pc.NullGraphicsDevice(canvas),
    keyboard: new pc.Keyboard(window),
  });
  greeting.mockRestore();
  app.start();
  let time = performance.now();
  const client = new FakeClient();
  client.members.set('1', { id: '1', name: 'Ada', connected: true });
  client.members.set('2', { id: '2', name: 'Grace', connected: false });
  const rig: Rig = {
    app,
    parent,
    client,
    frame: () => app.tick((time += 16)),
  };
  rigs.push(rig);
  return rig;
}

const asClient = (client: FakeClient) => client as unknown as PluginClient;
/** How many listeners the app holds for an event (EventHandler keeps them per name). */
const appListeners = (app: pc.AppBase, name: string) =>
  ((app as unknown as { _callbacks: Map<string, unknown[]> })._callbacks.get(name) ?? []).length;
const styleSheets = () => document.head.querySelectorAll('style[data-social-layer]').length;

afterEach(() => {
  for (const rig of rigs.splice(0)) {
    if (rig.app.root) rig.app.destroy();
    rig.parent.remove();
  }
});

describe('SocialLayer (app-level system)', () => {
  it('shows the lobby panels over the canvas and redraws them from client events', () => {
    const { app, parent, client } = makeRig();
    const social = new SocialLayer(app, asClient(client)).showLobby(LOBBY_ID);
    expect(social.overlay?.element.parentElement).toBe(parent);
    const rows = () => [...parent.querySelectorAll('.sl-member')].map((row) => row.getAttribute('data-user-id'));
    expect(rows().sort()).toEqual(['1', '2']);

    client.members.set('3', { id: '3', name: 'Linus', connected: true });
    client.emit('lobbyMemberAdded', LOBBY_ID, '3');
    expect(rows().sort()).toEqual(['1', '2', '3']);

    client.receive(LOBBY_ID, '2', 'hello from Grace');
    const message = parent.querySelector('.sl-chat-message');
    expect(message?.getAttribute('data-author-id')).toBe('2');
    expect(message?.textContent).toContain('hello from Grace');
    expect(social.chat?.messageCount).toBe(1);
  });

  it('pumps runCallbacks on every app update only when asked', () => {
    const quiet = makeRig();
    new SocialLayer(quiet.app, asClient(quiet.client));
    quiet.frame();
    quiet.frame();
    expect(quiet.client.runCallbacksCalls).toBe(0);

    const pumped = makeRig();
    const social = new SocialLayer(pumped.app, asClient(pumped.client), { pumpCallbacks: true });
    pumped.frame();
    pumped.frame();
    pumped.frame();
    expect(pumped.client.runCallbacksCalls).toBe(3);

    social.destroy();
    pumped.frame();
    expect(pumped.client.runCallbacksCalls).toBe(3);
  });

  it('app destroy removes the panels, the overlay, the stylesheet, every client listener and its app hooks', () => {
    const { app, parent, client } = makeRig();
    const updateBefore = appListeners(app, 'update');
    const destroyBefore = appListeners(app, 'destroy');
    const social = new SocialLayer(app, asClient(client), { pumpCallbacks: true }).showLobby(LOBBY_ID).showFriends();
    expect(client.listenerCount()).toBeGreaterThan(0);
    expect(parent.querySelector('.sl-friends')).not.toBeNull();
    expect(styleSheets()).toBe(1);
    expect(appListeners(app, 'update')).toBe(updateBefore + 1);
    expect(appListeners(app, 'destroy')).toBe(destroyBefore + 1);

    app.destroy();
    expect(social.destroyed).toBe(true);
    expect(client.listenerCount()).toBe(0);
    expect(parent.querySelector('.sl-overlay')).toBeNull();
    expect(styleSheets()).toBe(0);
    expect(() => social.showLobby(LOBBY_ID)).toThrow(/after destroy/);
  });

  it('destroy before the app goes unhooks from the app; hide and show again work', () => {
    const { app, parent, client } = makeRig();
    const updateBefore = appListeners(app, 'update');
    const destroyBefore = appListeners(app, 'destroy');
    const social = new SocialLayer(app, asClient(client)).showLobby(LOBBY_ID).showFriends();
    social.hideFriends().hideLobby();
    expect(client.listenerCount()).toBe(0);
    expect(parent.querySelector('.sl-member')).toBeNull();
    social.showLobby(LOBBY_ID, { chat: false });
    expect(parent.querySelector('.sl-chat')).toBeNull();
    expect(parent.querySelectorAll('.sl-member').length).toBe(2);

    social.destroy();
    social.destroy();
    expect(client.listenerCount()).toBe(0);
    expect(parent.querySelector('.sl-overlay')).toBeNull();
    expect(appListeners(app, 'update')).toBe(updateBefore);
    expect(appListeners(app, 'destroy')).toBe(destroyBefore);
  });

  it('sends chat through the client', async () => {
    const { app, parent, client } = makeRig();
    new SocialLayer(app, asClient(client)).showLobby(LOBBY_ID);
    const input = parent.querySelector('.sl-chat-input') as HTMLInputElement;
    input.value = 'gg';
    (parent.querySelector('.sl-chat-send') as HTMLButtonElement).click();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(client.sent).toEqual(['gg']);
    expect(parent.querySelector('.sl-chat-message')?.textContent).toContain('gg');
  });

  it('push-to-talk: V held talks, typing in the chat does not, destroy releases and unbinds', () => {
    const { app, parent, client } = makeRig();
    const social = new SocialLayer(app, asClient(client)).showLobby(LOBBY_ID);
    const call = new FakeCall();
    const key = social.bindPushToTalk(call);
    expect(call.mode).toBe(2);
    const press = (type: 'keydown' | 'keyup', target: EventTarget = window) =>
      target.dispatchEvent(new KeyboardEvent(type, { code: 'KeyV', key: 'v', bubbles: true }));

    press('keydown');
    expect(key.active).toBe(true);
    press('keyup');
    expect(call.ptt).toEqual([true, false]);

    const input = parent.querySelector('.sl-chat-input') as HTMLInputElement;
    input.focus();
    press('keydown', input);
    press('keyup', input);
    expect(call.ptt).toEqual([true, false]);
    input.blur();

    // A second key, destroyed by the game before the layer: the layer forgets it.
    const early = social.bindPushToTalk(new FakeCall(), { code: 'KeyT' });
    early.destroy();

    press('keydown');
    app.destroy();
    expect(call.ptt).toEqual([true, false, true, false]);
    press('keydown');
    expect(call.ptt).toEqual([true, false, true, false]);
    expect(() => social.bindPushToTalk(call)).toThrow(/after destroy/);
  });
});

describe('SocialLayerScript (ESM script on an entity)', () => {
  function addScriptEntity(rig: Rig, properties: Partial<SocialLayerScript>): pc.Entity {
    const entity = new pc.Entity('social');
    entity.addComponent('script');
    rig.app.root.addChild(entity);
    entity.script!.create(SocialLayerScript, { properties });
    return entity;
  }

  it('initializes from its properties, is typed on entity.script, hides while disabled', () => {
    const rig = makeRig();
    const entity = addScriptEntity(rig, { client: asClient(rig.client), lobbyId: LOBBY_ID, friends: {} });
    const script = entity.script!.socialLayer;
    expect(script).toBeInstanceOf(SocialLayerScript);
    expect(entity.script!.get(SocialLayerScript)).toBe(script);
    const layer = script!.layer!;
    expect(layer.members).toBeDefined();
    expect(layer.friends).toBeDefined();
    expect(rig.parent.querySelectorAll('.sl-member').length).toBe(2);

    entity.enabled = false;
    expect(layer.overlay!.element.style.display).toBe('none');
    entity.enabled = true;
    expect(layer.overlay!.element.style.display).toBe('');
  });

  it('pumps callbacks while the entity lives; entity destroy frees everything while the app runs on', () => {
    const rig = makeRig();
    const updateBefore = appListeners(rig.app, 'update');
    const entity = addScriptEntity(rig, { client: asClient(rig.client), lobbyId: LOBBY_ID, pumpCallbacks: true, friends: {} });
    const layer = entity.script!.socialLayer!.layer!;
    rig.frame();
    rig.frame();
    expect(rig.client.runCallbacksCalls).toBe(2);
    expect(rig.client.listenerCount()).toBeGreaterThan(0);

    entity.destroy();
    expect(layer.destroyed).toBe(true);
    expect(rig.client.listenerCount()).toBe(0);
    expect(rig.parent.querySelector('.sl-overlay')).toBeNull();
    expect(styleSheets()).toBe(0);
    expect(appListeners(rig.app, 'update')).toBe(updateBefore);
    rig.frame();
    expect(rig.client.runCallbacksCalls).toBe(2);
  });

  it('removing the script, or destroying the app, frees everything too', () => {
    const rig = makeRig();
    const entity = addScriptEntity(rig, { client: asClient(rig.client), lobbyId: LOBBY_ID });
    const first = entity.script!.socialLayer!.layer!;
    entity.script!.destroy(SocialLayerScript);
    expect(first.destroyed).toBe(true);
    expect(rig.client.listenerCount()).toBe(0);

    entity.script!.create(SocialLayerScript, { properties: { client: asClient(rig.client), lobbyId: LOBBY_ID } });
    const second = entity.script!.socialLayer!.layer!;
    expect(rig.client.listenerCount()).toBeGreaterThan(0);
    rig.app.destroy();
    expect(second.destroyed).toBe(true);
    expect(rig.client.listenerCount()).toBe(0);
    expect(rig.parent.querySelector('.sl-overlay')).toBeNull();
  });

  it('refuses to start without a client', () => {
    const rig = makeRig();
    const errors: unknown[] = [];
    const entity = new pc.Entity('social');
    entity.addComponent('script');
    rig.app.root.addChild(entity);
    // PlayCanvas catches a script's initialize error, logs and reports it, and disables the script.
    const logged = [vi.spyOn(console, 'error'), vi.spyOn(console, 'warn')].map((spy) => spy.mockImplementation(() => {}));
    entity.script!.on('error', (_script: unknown, error: unknown) => errors.push(error));
    entity.script!.create(SocialLayerScript, { properties: { lobbyId: LOBBY_ID } });
    for (const spy of logged) spy.mockRestore();
    expect(String(errors[0])).toMatch(/set the client property/);
    expect(rig.parent.querySelector('.sl-overlay')).toBeNull();
  });
});
