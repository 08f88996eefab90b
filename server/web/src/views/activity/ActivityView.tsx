import { useEffect, useRef, useState } from 'preact/hooks';
import { onDispatch } from '../../api/GatewayClient.ts';
import { currentUser, sessionToken } from '../../api/session.ts';
import { Button, Empty, Notice } from '../../components/ui.tsx';
import { activityApi, type ActivityLaunch, type ActivityPlace } from './activityApi.ts';
import { activityHandlers } from './activityHandlers.ts';
import { EmbeddedAppHost } from './sdkHost.ts';
import { LAYOUT_FOCUSED, type GatewayVoiceState, sdkOrientation, sdkParticipant, sdkUser, sdkVoiceState, type UserLike } from './sdkEvents.ts';
import { watchRelationships } from './relationshipEvents.ts';
import { onVoiceState, voiceStatesIn } from './voiceStates.ts';
import { forwardSpeaking, type SpeakingEvent } from './speakingEvents.ts';
import { ActivityVoiceBar } from './ActivityVoice.tsx';
import { navigate } from '../../state/router.ts';
import { watchLiveness } from './activityLiveness.ts';
import { devicePlatform, sdkPlatform, unsupportedMessage, viewportPortrait } from './platform.ts';
import { ApiRequestError } from '../../api/RestClient.ts';
import './activity.css';

/** The bridge page on the activity's own origin that frames the activity (see server/README.md, Embedded apps). */
export const BRIDGE_PATH = '/.platform/activity-host';

type Dialog =
  | { kind: 'consent'; scopes: string[]; resolve: (ok: boolean) => void }
  | { kind: 'share'; url: string; message: string; copied: boolean; resolve: (copied: boolean) => void }
  | { kind: 'link'; url: string; resolve: (ok: boolean) => void };

/**
 * `/app/activity/APPLICATION_ID?channel_id=&guild_id=[&custom_id=]` or `?lobby_id=` (issue 17): launches the
 * activity in the channel (or joins the instance running there), frames it with the SDK's query
 * parameters, and answers its postMessage commands (sdkHost.ts, activityHandlers.ts). Leaving the
 * page leaves the instance.
 */
export function ActivityView({ applicationId }: { applicationId: string }) {
  // Another channel (or shared link) is another page: everything of the old one (its instance, its
  // host and listeners) ends before the new one starts, so nothing of it can join the old instance again.
  return <ActivityPage key={location.search} applicationId={applicationId} />;
}

function ActivityPage({ applicationId }: { applicationId: string }) {
  const q = new URLSearchParams(location.search);
  const channelId = q.get('channel_id') ?? '';
  // A lobby of the application launches there instead (`?lobby_id=`).
  const lobbyId = q.get('lobby_id');
  const place: ActivityPlace = lobbyId !== null ? { lobby_id: lobbyId } : { channel_id: channelId };
  const customId = q.get('custom_id');
  // Checked by the server against the activity's supported platforms (platform.ts).
  const platform = devicePlatform();
  const [launch, setLaunch] = useState<ActivityLaunch | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const frame = useRef<HTMLIFrameElement>(null);
  const launchRef = useRef<ActivityLaunch | null>(null);
  const frameId = useRef(crypto.randomUUID());
  // Leaves the instance now (a hung activity, activityLiveness.ts); set by the launch effect.
  const leaveNow = useRef<() => void>(() => {});
  // A guild voice channel's activity shows the channel's call beside it (ActivityVoice.tsx).
  const [voiceChannel, setVoiceChannel] = useState(false);

  useEffect(() => {
    if (!/^\d{1,20}$/.test(lobbyId ?? channelId)) {
      setError('Open an activity from a channel or a lobby: the link needs a channel_id or a lobby_id.');
      return;
    }
    let left = false;
    // The token, held for the page's last moment: a request made while the page goes away must
    // start at once (keepalive), with no await before it.
    let token: string | null = null;
    void sessionToken().then((t) => (token = t), () => {});
    activityApi
      .launch(applicationId, place, platform)
      .then((l) => {
        launchRef.current = l;
        setLaunch(l);
        if (l.instance.location.kind === 'gc') void activityApi.channel(l.instance.location.channel_id).then((c) => !left && setVoiceChannel(c.type === 2 || c.type === 13), () => {});
      })
      .catch((e: Error) => {
        // A platform the activity does not support (its settings): say so plainly.
        const refused = e instanceof ApiRequestError ? (e.errors as { platform?: { _errors?: { code?: string; message?: string }[] } } | undefined)?.platform?._errors?.[0] : undefined;
        setError(refused?.code === 'ACTIVITY_PLATFORM_UNSUPPORTED' ? unsupportedMessage(platform, refused.message ?? '') : e.message);
      });
    const leave = (unloading: boolean) => {
      if (left || !launchRef.current) return;
      left = true;
      const instanceId = launchRef.current.instance.instance_id;
      if (unloading && token) {
        void fetch(`/api/v10/applications/${applicationId}/activity-instances/${instanceId}/participants/@me`, { method: 'DELETE', headers: { authorization: token }, keepalive: true }).catch(() => {});
      } else {
        void activityApi.leave(applicationId, instanceId).catch(() => {});
      }
    };
    leaveNow.current = () => leave(false);
    const onPageHide = () => leave(true);
    window.addEventListener('pagehide', onPageHide);
    return () => {
      window.removeEventListener('pagehide', onPageHide);
      leave(false);
    };
  }, [applicationId, channelId, lobbyId]);

  useEffect(() => {
    const el = frame.current;
    const me = currentUser();
    if (!launch || !el?.contentWindow || !me) return;
    const ask = <T,>(make: (resolve: (v: T) => void) => Dialog) => new Promise<T>((resolve) => setDialog(make((v: T) => { setDialog(null); resolve(v); })));
    // The activity's AUTHENTICATE token (RELATIONSHIP_UPDATE rereads the list with it).
    let authenticated: { token: string; scopes: string[] } | null = null;
    // The orientation the activity's frame has: the viewport's (a desktop window can be portrait too).
    const portrait = viewportPortrait;
    const host: EmbeddedAppHost = new EmbeddedAppHost({
      applicationId,
      frameId: frameId.current,
      source: el.contentWindow,
      origin: launch.activity_origin,
      target: el.contentWindow,
      // READY's user: avatar only when set (the SDK's schema refuses null).
      ready: () => ({ v: 1, config: { api_endpoint: `${location.origin}/api`, environment: 'production' }, user: { id: me.id, username: me.username, discriminator: '0' } }),
      onSubscribe: (evt, args) => {
        if (evt === 'ACTIVITY_LAYOUT_MODE_UPDATE') host.dispatch(evt, LAYOUT_FOCUSED);
        if (evt === 'CURRENT_USER_UPDATE') host.dispatch(evt, sdkUser(me));
        if (evt === 'ORIENTATION_UPDATE') host.dispatch(evt, sdkOrientation(portrait()));
        if (evt === 'ACTIVITY_INSTANCE_PARTICIPANTS_UPDATE') void refresh();
        // SPEAKING_START/STOP {channel_id}: the channel's speaking changes from the held call
        // (speakingEvents.ts); no channel_id means the activity's own channel.
        if (evt === 'SPEAKING_START' || evt === 'SPEAKING_STOP') {
          const ch = args.channel_id ?? launchRef.current?.instance.location.channel_id;
          if (typeof ch === 'string' && /^\d{1,20}$/.test(ch)) speakingChannels[evt].add(ch);
        }
        // VOICE_STATE_UPDATE {channel_id}: who is in that voice channel of the activity's guild now,
        // then every change there (voiceStates.ts, from the web app's Gateway session).
        const guildId = launchRef.current?.instance.location.guild_id;
        if (evt === 'VOICE_STATE_UPDATE' && guildId && typeof args.channel_id === 'string' && /^\d{1,20}$/.test(args.channel_id)) {
          voiceChannels.add(args.channel_id);
          for (const vs of voiceStatesIn(guildId, args.channel_id)) void sendVoiceState(vs);
        }
      },
      onClose: (code, message) => {
        if (code !== 1000) setError(`The activity closed: ${message ?? code}`);
      },
      handlers: activityHandlers({
        applicationId,
        me,
        launch: () => launchRef.current!,
        refresh: () => refresh(),
        onAuthenticated: (a) => {
          authenticated = a;
        },
        ui: {
          consent: (scopes) => ask<boolean>((resolve) => ({ kind: 'consent', scopes, resolve })),
          share: (url, message) => ask<boolean>((resolve) => ({ kind: 'share', url, message, copied: false, resolve })),
          confirmLink: (url) => ask<boolean>((resolve) => ({ kind: 'link', url, resolve })),
          dispatch: (evt, data) => host.dispatch(evt, data),
          log: (level, message) => {
            if (level === 'error') console.debug(`[activity ${applicationId}] ${message.slice(0, 500)}`);
          },
        },
      }),
    });
    const refresh = async () => {
      const l = await activityApi.launch(applicationId, place, platform);
      launchRef.current = l;
      host.dispatch('ACTIVITY_INSTANCE_PARTICIPANTS_UPDATE', { participants: l.participants.map(sdkParticipant) });
      return l;
    };
    const speakingChannels: Record<SpeakingEvent, Set<string>> = { SPEAKING_START: new Set(), SPEAKING_STOP: new Set() };
    const offSpeaking = forwardSpeaking(
      (evt, ch) => host.subscriptions.has(evt) && speakingChannels[evt].has(ch),
      (evt, data) => host.dispatch(evt, data),
    );
    // Voice channels the activity subscribed to VOICE_STATE_UPDATE for, and the users they name.
    const voiceChannels = new Set<string>();
    const users = new Map<string, Promise<UserLike | null>>();
    const userOf = (vs: GatewayVoiceState): Promise<UserLike | null> => {
      if (vs.member?.user) return Promise.resolve(vs.member.user);
      let u = users.get(vs.user_id);
      // A partial voice state (GUILD_CREATE's) has no member: read it from the guild.
      const guildId = vs.guild_id ?? launchRef.current?.instance.location.guild_id;
      if (!u && guildId) users.set(vs.user_id, (u = activityApi.member(guildId, vs.user_id).then((m) => m.user, () => null)));
      if (!u) return Promise.resolve(null);
      return u;
    };
    const sendVoiceState = async (vs: GatewayVoiceState) => {
      const user = await userOf(vs);
      if (user && host.subscriptions.has('VOICE_STATE_UPDATE')) host.dispatch('VOICE_STATE_UPDATE', sdkVoiceState(vs, user));
    };
    // Someone joins the channel, or changes mute/deafen in it (the SDK has no event for leaving).
    const offVoice = onVoiceState((vs) => {
      if (!host.subscriptions.has('VOICE_STATE_UPDATE') || vs.guild_id !== launchRef.current?.instance.location.guild_id || !vs.channel_id || !voiceChannels.has(vs.channel_id)) return;
      void sendVoiceState(vs);
    });
    // A hung activity lapses: out of the instance (the others hear it), its frame removed.
    const liveness = watchLiveness(el.contentWindow, launch.activity_origin, () => {
      leaveNow.current();
      setError('The activity stopped responding, so it was closed. Reload the page to start it again.');
    });
    const onMessage = (e: MessageEvent) => {
      if (!liveness.onMessage(e)) host.handleMessage(e);
    };
    window.addEventListener('message', onMessage);
    // The server tells the page when someone joins or leaves this instance; the activity hears it
    // (with names, from a reread) if it subscribed.
    const offGateway = onDispatch((event, data) => {
      if (event !== 'ACTIVITY_INSTANCE_PARTICIPANTS_UPDATE' || (data as { instance_id?: string }).instance_id !== launchRef.current?.instance.instance_id) return;
      if (host.subscriptions.has('ACTIVITY_INSTANCE_PARTICIPANTS_UPDATE')) void refresh().catch(() => {});
    });
    const offRelationships = watchRelationships({ auth: () => authenticated, subscribed: () => host.subscriptions.has('RELATIONSHIP_UPDATE'), dispatch: (data) => host.dispatch('RELATIONSHIP_UPDATE', data) });
    // Sent when it changes (a phone turned, a window resized past square), not on every resize.
    let lastPortrait = portrait();
    const onOrientation = () => {
      if (portrait() === lastPortrait) return;
      lastPortrait = portrait();
      if (host.subscriptions.has('ORIENTATION_UPDATE')) host.dispatch('ORIENTATION_UPDATE', sdkOrientation(lastPortrait));
    };
    window.addEventListener('resize', onOrientation);
    screen.orientation?.addEventListener('change', onOrientation);
    return () => {
      window.removeEventListener('resize', onOrientation);
      screen.orientation?.removeEventListener('change', onOrientation);
      offRelationships();
      offSpeaking();
      liveness.stop();
      offVoice();
      offGateway();
      window.removeEventListener('message', onMessage);
      host.close();
    };
  }, [launch]);

  if (error) return <div class="activity-page"><Notice kind="error">{error}</Notice></div>;
  if (!launch) return <Empty>Starting the activity…</Empty>;
  const l = launch.instance.location;
  const frameQuery = new URLSearchParams({
    frame_id: frameId.current,
    instance_id: launch.instance.instance_id,
    platform: sdkPlatform(platform, matchMedia('(max-width: 700px)').matches),
    channel_id: l.channel_id,
    location_id: l.id,
    ...(l.guild_id ? { guild_id: l.guild_id } : {}),
    ...(customId ? { custom_id: customId.slice(0, 64) } : {}),
  });
  return (
    <div class="activity-page" data-instance-id={launch.instance.instance_id}>
      <iframe
        ref={frame}
        id="activity-frame"
        class="activity-frame"
        title="Activity"
        src={`${launch.activity_origin}${BRIDGE_PATH}?${frameQuery}`}
        allow="autoplay; clipboard-write; fullscreen; microphone"
      />
      {voiceChannel && l.guild_id && (
        <ActivityVoiceBar
          guildId={l.guild_id}
          channelId={l.channel_id}
          known={new Map(launch.participants.map((p) => [p.id, p.global_name ?? p.username]))}
          onLeftVoice={() => navigate({ name: 'guild', guildId: l.guild_id!, channelId: l.channel_id })}
        />
      )}
      {dialog && <ActivityDialog dialog={dialog} onCopied={(copied) => dialog.kind === 'share' && setDialog({ ...dialog, copied })} />}
    </div>
  );
}

function ActivityDialog({ dialog, onCopied }: { dialog: Dialog; onCopied: (copied: boolean) => void }) {
  if (dialog.kind === 'consent') {
    return (
      <div class="activity-dialog" role="dialog" aria-label="Authorize" id="activity-consent">
        <h2>Allow this activity to</h2>
        <ul>{dialog.scopes.map((s) => <li key={s}><code>{s}</code></li>)}</ul>
        <div class="activity-dialog-actions">
          <Button variant="secondary" onClick={() => dialog.resolve(false)}>Cancel</Button>
          <Button id="activity-consent-allow" onClick={() => dialog.resolve(true)}>Authorize</Button>
        </div>
      </div>
    );
  }
  if (dialog.kind === 'share') {
    const copy = () => navigator.clipboard.writeText(dialog.url).then(() => onCopied(true), () => onCopied(false));
    return (
      <div class="activity-dialog" role="dialog" aria-label="Share link" id="activity-share">
        <h2>Share this activity</h2>
        {dialog.message && <p>{dialog.message}</p>}
        <input class="activity-share-url" id="activity-share-url" readOnly value={dialog.url} onFocus={(e) => (e.target as HTMLInputElement).select()} />
        <div class="activity-dialog-actions">
          <Button variant="secondary" onClick={copy}>{dialog.copied ? 'Copied' : 'Copy link'}</Button>
          <Button id="activity-share-done" onClick={() => dialog.resolve(dialog.copied)}>Done</Button>
        </div>
      </div>
    );
  }
  return (
    <div class="activity-dialog" role="dialog" aria-label="Open link" id="activity-link">
      <h2>Leave for another site?</h2>
      <p class="activity-link-url">{dialog.url}</p>
      <div class="activity-dialog-actions">
        <Button variant="secondary" onClick={() => dialog.resolve(false)}>Stay</Button>
        <Button id="activity-link-open" onClick={() => dialog.resolve(true)}>Open link</Button>
      </div>
    </div>
  );
}
