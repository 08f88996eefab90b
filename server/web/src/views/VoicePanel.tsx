import type { APIGuildMember } from 'discord-api-types/v10';
import { useEffect, useState } from 'preact/hooks';
import { Avatar, Button, Notice } from '../components/ui.tsx';
import { memberName } from '../model/members.ts';
import type { VoiceSession } from '../voice/voiceCall.ts';
import { adoptCall, joinCall, leaveCall, releaseCall, watchCall } from './voiceCallHolder.ts';

const STATUS_TEXT = ['Not connected', 'Joining…', 'Connecting…', 'Connecting…', 'Connected', 'Reconnecting…', 'Leaving…'];

/**
 * A guild voice channel: "Join voice" starts the channel's call through the client SDK, then the
 * panel lists who is in the channel with a speaking indicator, and talking is push-to-talk (hold
 * V, or hold the Talk button). Leaving the channel's page leaves the call, unless the channel's
 * activity takes it over (voiceCallHolder.ts: the call is held outside the view).
 */
export function VoicePanel({ channelId, members, inVoice }: { channelId: string; members: readonly APIGuildMember[]; inVoice: readonly string[] }) {
  const [session, setSession] = useState<VoiceSession | null>(() => adoptCall(channelId));
  const [joining, setJoining] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [, setTick] = useState(0);
  const rerender = () => setTick((n) => n + 1);

  // The held call (this channel's, kept by its activity, or none) and its changes; another
  // channel, or away from the guild: the call is released (left unless an activity adopts it).
  useEffect(() => {
    setSession(adoptCall(channelId));
    const off = watchCall(() => {
      setSession(adoptCall(channelId));
      rerender();
    });
    return () => {
      off();
      releaseCall(channelId);
    };
  }, [channelId]);

  // E2EE readiness (the DAVE group keys) has no event of its own: look again twice a second.
  useEffect(() => {
    if (!session) return;
    const timer = setInterval(rerender, 500);
    return () => clearInterval(timer);
  }, [session]);

  const join = async () => {
    setJoining(true);
    setError(null);
    try {
      setSession(await joinCall(channelId));
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setJoining(false);
    }
  };
  const leave = async () => {
    setSession(null);
    await leaveCall();
  };

  const byId = new Map(members.filter((m) => m.user).map((m) => [m.user!.id, m]));
  const snap = session?.snapshot();
  // Who is in the channel: the Gateway's voice states (everyone's), and the call's own view.
  const ids = [...new Set([...inVoice, ...(snap?.participants ?? [])])];
  const list = (
    <ul class="voice-participants" id="voice-participants" aria-label="In this channel">
      {ids.map((id) => {
        const m = byId.get(id);
        const name = m ? memberName(m) : id;
        const speaking = snap?.speaking.includes(id) ?? false;
        return (
          <li key={id} class={`voice-participant${speaking ? ' voice-speaking' : ''}`} data-user-id={id} data-speaking={String(speaking)}>
            <Avatar id={id} name={name} size="sm" />
            <span>{name}</span>
            {speaking && <span class="voice-speaking-label">speaking</span>}
          </li>
        );
      })}
    </ul>
  );

  if (!session || !snap) {
    return (
      <div class="voice-panel" id="voice-panel" data-state="out">
        {error && <Notice kind="error">{error}</Notice>}
        {ids.length > 0 ? list : <p class="muted">Nobody is in this channel.</p>}
        <p class="muted">Join to talk with push-to-talk (hold V or the Talk button).</p>
        <Button id="join-voice" disabled={joining} onClick={() => void join()}>
          {joining ? 'Joining…' : 'Join voice'}
        </Button>
      </div>
    );
  }
  const talk = (on: boolean) => (e: Event) => {
    e.preventDefault();
    session.setTalking(on);
  };
  return (
    <div class="voice-panel" id="voice-panel" data-state="in" data-status={snap.status} data-e2ee={String(snap.e2ee)}>
      <p class="voice-status" id="voice-status">
        {STATUS_TEXT[snap.status] ?? ''}
        {snap.e2ee ? ' · end-to-end encrypted' : ''}
      </p>
      {list}
      <div class="voice-actions">
        <Button
          id="push-to-talk"
          variant={snap.talking ? 'primary' : 'secondary'}
          aria-pressed={snap.talking}
          onPointerDown={talk(true)}
          onPointerUp={talk(false)}
          onPointerLeave={talk(false)}
          onPointerCancel={talk(false)}
        >
          {snap.talking ? 'Talking…' : 'Hold to talk (V)'}
        </Button>
        <Button id="leave-voice" variant="danger" onClick={() => void leave()}>
          Leave voice
        </Button>
      </div>
    </div>
  );
}
