// The header's voice controls: Join/Leave voice, and Hold to talk for touch screens (the V key
// does the same on a keyboard: VoiceChat's push-to-talk key).
import { CallStatus } from '@social-layer/client';
import type { VoiceChat } from '@social-layer/ui';

export function showVoiceControls(voice: VoiceChat, join: HTMLElement, talk: HTMLElement, hint: HTMLElement): void {
  const render = () => {
    const status = voice.status;
    join.textContent = voice.call ? 'Leave voice' : 'Join voice';
    (talk as HTMLButtonElement).disabled = status !== CallStatus.Connected;
    hint.textContent = !voice.call ? '' : status === CallStatus.Connected ? 'Hold V or Talk' : 'Connecting…';
  };
  voice.onChange(render);
  render();
  join.addEventListener('click', () => void voice.toggle().catch((error: unknown) => (hint.textContent = `Voice: ${(error as Error).message ?? error}`)));
  const hold = (active: boolean) => voice.call?.setPTTActive(active);
  talk.addEventListener('pointerdown', (e) => {
    talk.setPointerCapture(e.pointerId);
    talk.classList.add('active');
    hold(true);
  });
  for (const type of ['pointerup', 'pointercancel', 'lostpointercapture'] as const) {
    talk.addEventListener(type, () => {
      talk.classList.remove('active');
      hold(false);
    });
  }
}
