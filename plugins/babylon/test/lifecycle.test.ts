/**
 * The component's lifecycle in Node, with a real Babylon.js scene on a NullEngine and a DOM from
 * happy-dom: callbacks are pumped before each render only when asked, the panels render from
 * the client, and disposing the scene (or the component) frees every client listener, the
 * panels, the stylesheet and the component's scene observers. Push-to-talk follows its key and
 * is unbound with the scene.
 */
import { NullEngine } from '@babylonjs/core/Engines/nullEngine.js';
import { FreeCamera } from '@babylonjs/core/Cameras/freeCamera.js';
import { Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import { Logger } from '@babylonjs/core/Misc/logger.js';
import { Scene } from '@babylonjs/core/scene.js';
import { Window } from 'happy-dom';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PushToTalk, SocialLayerComponent, type PluginClient } from '../src/index.ts';
import { FakeClient } from './fakeClient.ts';

Logger.LogLevels = Logger.NoneLogLevel;

let engine: NullEngine;
let scene: Scene;
let client: FakeClient;
let window: Window;
let parent: HTMLElement;

beforeEach(() => {
  engine = new NullEngine();
  scene = new Scene(engine);
  new FreeCamera('camera', new Vector3(0, 5, -10), scene);
  client = new FakeClient();
  client.members.set('1', { id: '1', name: 'Ada', connected: true });
  client.members.set('2', { id: '2', name: 'Grace', connected: false });
  window = new Window();
  parent = window.document.createElement('div') as unknown as HTMLElement;
  window.document.body.append(parent as never);
});

afterEach(async () => {
  if (!scene.isDisposed) scene.dispose();
  engine.dispose();
  await window.happyDOM.close();
});

const asClient = (fake: FakeClient) => fake as unknown as PluginClient;
/** Babylon removes observers on a zero-delay timer (Observable._deferUnregister): let it run. */
const removalsDone = () => new Promise((resolve) => setTimeout(resolve, 0));
const doc = () => window.document as unknown as Document;

describe('SocialLayerComponent on a NullEngine scene', () => {
  it('pumps client.runCallbacks() before every render only while pumpCallbacks is on', () => {
    const observersBefore = scene.onBeforeRenderObservable.observers.length;
    const social = new SocialLayerComponent(scene, asClient(client));
    scene.render();
    expect(client.runCallbacksCalls).toBe(0);
    expect(scene.onBeforeRenderObservable.observers.length).toBe(observersBefore);

    social.pumpCallbacks = true;
    scene.render();
    scene.render();
    scene.render();
    expect(client.runCallbacksCalls).toBe(3);

    social.pumpCallbacks = false;
    scene.render();
    expect(client.runCallbacksCalls).toBe(3);

    const pumping = new SocialLayerComponent(scene, asClient(client), { pumpCallbacks: true });
    expect(social.isDisposed).toBe(true); // one component per scene: the new one replaces it
    expect(SocialLayerComponent.Get(scene)).toBe(pumping);
    scene.render();
    expect(client.runCallbacksCalls).toBe(4);
  });

  it('shows the panels over the given parent, from the client', async () => {
    const social = new SocialLayerComponent(scene, asClient(client), { parent });
    social.showLobby('42').showFriends();
    expect(parent.querySelector('.sl-overlay')).not.toBeNull();
    expect([...parent.querySelectorAll('.sl-member-name')].map((n) => n.textContent)).toEqual(['Ada', 'Grace']);
    expect(parent.querySelector('.sl-friend[data-user-id="10"]')?.getAttribute('data-group')).toBe('0');
    expect(doc().head.querySelector('style[data-social-layer]')).not.toBeNull();

    client.members.get('2')!.connected = true;
    client.emit('lobbyMemberUpdated', '42', '2');
    expect(parent.querySelector('.sl-member[data-user-id="2"]')?.getAttribute('data-connected')).toBe('true');

    await client.sendLobbyMessage('42', 'hello');
    expect(social.chat?.messageCount).toBe(1);
    expect(parent.querySelector('.sl-chat-text')?.textContent).toBe('hello');
  });

  it('frees every listener, panel and observer when the scene is disposed', () => {
    const beforeRender = scene.onBeforeRenderObservable.observers.length;
    const onDispose = scene.onDisposeObservable.observers.length;
    const social = new SocialLayerComponent(scene, asClient(client), { parent, pumpCallbacks: true });
    social.showLobby('42').showFriends();
    let disposedEvents = 0;
    social.onDisposeObservable.add(() => disposedEvents++);
    expect(client.listenerCount()).toBeGreaterThan(0);
    expect(scene.onBeforeRenderObservable.observers.length).toBe(beforeRender + 1);
    expect(scene.onDisposeObservable.observers.length).toBe(onDispose + 1);

    scene.dispose();
    expect(social.isDisposed).toBe(true);
    expect(disposedEvents).toBe(1);
    expect(client.listenerCount()).toBe(0);
    expect(parent.querySelector('.sl-overlay')).toBeNull();
    expect(doc().head.querySelector('style[data-social-layer]')).toBeNull();
    expect(SocialLayerComponent.Get(scene)).toBeUndefined();
    expect(social.onDisposeObservable.hasObservers()).toBe(false);
    social.dispose(); // twice is fine
    expect(disposedEvents).toBe(1);
  });

  it('dispose() on a living scene removes its observers and leaves the scene running', async () => {
    const beforeRender = scene.onBeforeRenderObservable.observers.length;
    const onDispose = scene.onDisposeObservable.observers.length;
    const social = new SocialLayerComponent(scene, asClient(client), { parent, pumpCallbacks: true });
    social.showLobby('42');
    social.dispose();
    expect(client.listenerCount()).toBe(0);
    expect(parent.children.length).toBe(0);
    await removalsDone();
    expect(scene.onBeforeRenderObservable.observers.length).toBe(beforeRender);
    expect(scene.onDisposeObservable.observers.length).toBe(onDispose);
    scene.render();
    expect(client.runCallbacksCalls).toBe(0);
    expect(() => social.showLobby('42')).toThrow(/after dispose/);
    social.pumpCallbacks = true; // ignored once disposed
    expect(social.pumpCallbacks).toBe(false);
  });

  it('asks for a parent when the engine has no canvas', () => {
    const social = new SocialLayerComponent(scene, asClient(client));
    expect(() => social.showLobby('42')).toThrow(/options\.parent/);
    expect(client.listenerCount()).toBe(0);
  });
});

describe('PushToTalk', () => {
  function fakeCall() {
    return {
      modes: [] as number[],
      active: [] as boolean[],
      setAudioMode(mode: number) {
        this.modes.push(mode);
      },
      setPTTActive(on: boolean) {
        this.active.push(on);
      },
    };
  }
  const key = (type: string, code: string) => new window.KeyboardEvent(type, { code, bubbles: true });

  it('holds the call active while the key is down, never from a text field, released on blur', () => {
    const call = fakeCall();
    const target = window as unknown as EventTarget;
    const ptt = new PushToTalk(scene, call, { target });
    expect(call.modes).toEqual([2]); // AudioModeType.MODE_PTT
    expect(ptt.code).toBe('KeyV');

    window.dispatchEvent(key('keydown', 'KeyB'));
    expect(call.active).toEqual([]);
    window.dispatchEvent(key('keydown', 'KeyV'));
    window.dispatchEvent(key('keydown', 'KeyV')); // auto-repeat
    expect(ptt.active).toBe(true);
    window.dispatchEvent(key('keyup', 'KeyV'));
    expect(call.active).toEqual([true, false]);

    const input = window.document.createElement('input');
    window.document.body.append(input);
    input.dispatchEvent(key('keydown', 'KeyV'));
    expect(call.active).toEqual([true, false]);

    window.dispatchEvent(key('keydown', 'KeyV'));
    window.dispatchEvent(new window.Event('blur'));
    expect(call.active).toEqual([true, false, true, false]);
  });

  it('releases and unbinds when the scene is disposed, or on dispose()', async () => {
    const call = fakeCall();
    const onDispose = scene.onDisposeObservable.observers.length;
    const ptt = new PushToTalk(scene, call, { target: window as unknown as EventTarget, code: 'KeyT' });
    expect(scene.onDisposeObservable.observers.length).toBe(onDispose + 1);
    window.dispatchEvent(key('keydown', 'KeyT'));
    scene.dispose();
    expect(call.active).toEqual([true, false]);
    expect(ptt.active).toBe(false);
    window.dispatchEvent(key('keydown', 'KeyT'));
    expect(call.active).toEqual([true, false]);

    const other = new Scene(engine);
    const ptt2 = new PushToTalk(other, call, { target: window as unknown as EventTarget });
    window.dispatchEvent(key('keydown', 'KeyV'));
    ptt2.dispose();
    window.dispatchEvent(key('keydown', 'KeyV'));
    expect(call.active).toEqual([true, false, true, false]);
    await removalsDone();
    expect(other.onDisposeObservable.observers.length).toBe(0);
    other.dispose();
  });
});
