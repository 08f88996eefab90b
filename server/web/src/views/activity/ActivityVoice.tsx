import { useEffect, useState } from 'preact/hooks';
import { currentUser } from '../../api/session.ts';
import { Avatar, Button, Notice } from '../../components/ui.tsx';
import type { VoiceSession } from '../../voice/voiceCall.ts';
import { adoptCall, joinCall, leaveCall, releaseCall, watchCall } from '../voiceCallHolder.ts';
import { activityApi } from './activityApi.ts';
import { onVoiceState, voiceStatesIn } from './voiceStates.ts';

const names = new Map<string, Promise<string>>();
/** A participant's display name: the launch's participants, else their guild member (cached per page). */
function nameOf(guildId: string, id: string, known: Map<string, string>): Promise<string> {
  const k = known.get(id);
  if (k) return Promise.resolve(k);
  let p = names.get(`${guildId}/${id}`);
  if (!p) names.set(`${guildId}/${id}`, (p = activityApi.member(guildId, id).then((m) => m.nick ?? m.user.global_name ?? m.user.username, () => 'Someone')));
  return p;
}

/**
 * The voice call beside an activity launched in a guild voice channel (issue 17): the call the
 * user had in the channel stays up while the activity runs (voiceCallHolder.ts), with who is in
 * it, a speaking ring, push-to-talk and Leave voice; one opened from a shared link can join here.
 * Leaving voice leaves the activity too (`onLeftVoice`), as on the public platform.
 */
export function ActivityVoiceBar({ guildId, channelId, known, onLeftVoice }: { guildId: string; channelId: string; known: Map<string, string>; onLeftVoice: () => void }) {
  const [session, setSession] = useState<VoiceSession | null>(() => adoptCall(channelId));
  const [, setTick] = useState(0);
  const [joining, setJoining] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [labels, setLabels] = useState<Record<string, string>>({});

  useEffect(() => {
    setSession(adoptCall(channelId));
    const off = watchCall(() => {
      setSession(adoptCall(channelId));
      setTick((n) => n + 1);
    });
    // Who is in the channel comes from the Gateway's voice states too (the call lists only the others).
    // The user's own voice state leaving this channel (another tab's Leave voice, a moderator's
    // disconnect or move) ends the activity here too, as the Leave voice button does.
    const me = currentUser()?.id;
    let wasIn = voiceStatesIn(guildId, channelId).some((v) => v.user_id === me);
    const offStates = onVoiceState((vs) => {
      if (vs.guild_id !== guildId) return;
      setTick((n) => n + 1);
      if (vs.user_id !== me) return;
      if (vs.channel_id === channelId) wasIn = true;
      else if (wasIn) {
        wasIn = false;
        void leaveCall();
        onLeftVoice();
      }
    });
    return () => {
      off();
      offStates();
      releaseCall(channelId);
    };
  }, [channelId]);

  const snap = session?.snapshot();
  const ids = [...new Set([...voiceStatesIn(guildId, channelId).map((v) => v.user_id), ...(snap?.participants ?? [])])];
  useEffect(() => {
    for (const id of ids) if (!labels[id]) void nameOf(guildId, id, known).then((n) => setLabels((l) => ({ ...l, [id]: n })));
  }, [ids.join()]);

  if (!session || !snap) {
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
    return (
      <div class="activity-voice" id="activity-voice" data-state="out">
        {error && <Notice kind="error">{error}</Notice>}
        <span class="muted">Not in voice</span>
        <Button id="activity-join-voice" variant="secondary" disabled={joining} onClick={() => void join()}>
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
    <div class="activity-voice" id="activity-voice" data-state="in" data-status={snap.status}>
      <ul class="activity-voice-people" aria-label="In voice">
        {ids.map((id) => {
          const speaking = snap.speaking.includes(id);
          const name = labels[id] ?? known.get(id) ?? '…';
          return (
            <li key={id} class={`voice-participant${speaking ? ' voice-speaking' : ''}`} data-user-id={id} data-speaking={String(speaking)} title={name}>
              <Avatar id={id} name={name} size="sm" />
              <span class="activity-voice-name">{name}</span>
            </li>
          );
        })}
      </ul>
      <div class="activity-voice-actions">
        <Button id="activity-push-to-talk" variant={snap.talking ? 'primary' : 'secondary'} aria-pressed={snap.talking} onPointerDown={talk(true)} onPointerUp={talk(false)} onPointerLeave={talk(false)} onPointerCancel={talk(false)}>
          {snap.talking ? 'Talking…' : 'Hold to talk'}
        </Button>
        <Button
          id="activity-leave-voice"
          variant="danger"
          onClick={() => {
            setSession(null);
            void leaveCall();
            onLeftVoice();
          }}
        >
          Leave voice
        </Button>
      </div>
    </div>
  );
}
