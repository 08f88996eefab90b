import { CallStatus, type Call } from '@social-layer/client';
import type { PushToTalkKey } from '@social-layer/playcanvas';
import type { LobbyWorld } from './LobbyWorld.ts';
import type { LobbySession } from './session.ts';

/**
 * Voice chat in the lobby: a header button joins and leaves the lobby's call (a click is also
 * the user gesture browsers want before playing audio), V is push-to-talk, and avatars light
 * up while their player is heard. Every step is one Client or Call API call.
 */
export class LobbyVoice {
  call: Call | undefined;
  #ptt: PushToTalkKey | undefined;
  readonly #off: (() => void)[] = [];

  constructor(
    private readonly session: LobbySession,
    private readonly world: LobbyWorld,
    private readonly button: HTMLButtonElement,
    private readonly hint: HTMLElement,
  ) {
    button.hidden = false;
    button.addEventListener('click', () => void (this.call ? this.leave() : this.join()));
    this.render();
  }

  join(): Call | undefined {
    if (this.call) return this.call;
    const call = this.session.client.startCall(this.session.lobbyId);
    if (!call) return undefined;
    this.call = call;
    // Push-to-talk on V, bound to the app: it goes away with the app if the call outlives it.
    this.#ptt = this.world.social.bindPushToTalk(call);
    this.#off.push(
      call.on('speakingStatusChanged', (userId, speaking) => this.world.setSpeaking(userId, speaking)),
      call.on('statusChanged', (status) => {
        if (status === CallStatus.Disconnected) this.cleanUp();
        this.render();
      }),
    );
    this.render();
    return call;
  }

  async leave(): Promise<void> {
    if (!this.call) return;
    await this.session.client.endCall(this.session.lobbyId);
    this.cleanUp();
    this.render();
  }

  private cleanUp(): void {
    for (const off of this.#off.splice(0)) off();
    this.#ptt?.destroy();
    this.#ptt = undefined;
    this.call = undefined;
    this.world.clearSpeaking();
  }

  private render(): void {
    const status = this.call?.getStatus();
    this.button.textContent = this.call ? 'Leave voice' : 'Join voice';
    this.button.classList.toggle('secondary', Boolean(this.call));
    this.hint.hidden = !this.call;
    this.hint.textContent =
      status === CallStatus.Connected ? 'Hold V to talk' : status === CallStatus.Reconnecting ? 'Voice reconnecting…' : 'Voice connecting…';
  }
}
