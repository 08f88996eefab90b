import { useEffect, useRef } from 'preact/hooks';
import type { GatewayClient } from '../api/GatewayClient.ts';
import { goToSignIn, SignedOut } from '../api/session.ts';
import { Empty, Notice } from '../components/ui.tsx';
import { type AppState, useAppState } from '../state/AppState.ts';
import { navigate, useRoute } from '../state/router.ts';
import { GuildRail } from './GuildRail.tsx';
import { GuildView } from './GuildView.tsx';
import { Home } from './Home.tsx';
import { InviteAccept } from './InviteAccept.tsx';
import { CheckoutHost, StorePage, SubscriptionsPage } from './store/index.ts';
import { InteractionHost } from './interactions/index.ts';
import { QuestsPage } from './quests/index.ts';
import { DmView } from './messages/index.ts';
import { ActivityLauncher, ActivityView } from './activity/index.ts';

/** Gateway events that change what a guild's page shows. */
const GUILD_EVENTS = /^(CHANNEL_(CREATE|UPDATE|DELETE)|GUILD_MEMBER_(ADD|UPDATE|REMOVE)|GUILD_ROLE_(CREATE|UPDATE|DELETE)|GUILD_UPDATE)$/;

export function App({ store, gateway }: { store: AppState; gateway: GatewayClient }) {
  const route = useRoute();
  const state = useAppState(store);
  const openGuild = route.name === 'guild' ? route.guildId : null;
  const openRef = useRef(openGuild);
  openRef.current = openGuild;

  const report = (e: unknown) => (e instanceof SignedOut ? goToSignIn() : store.showError(e));

  useEffect(() => {
    store.loadGuilds().catch(report);
    // Live updates: reload the affected part on each event (cheap at a page's scale, and always
    // the same answer as REST gives).
    const off = gateway.on((event, data) => {
      const guildId = (data as { guild_id?: string; id?: string } | null)?.guild_id ?? (event.startsWith('GUILD_') ? (data as { id?: string }).id : undefined);
      if (event === 'GUILD_CREATE' || event === 'GUILD_DELETE' || event === 'GUILD_UPDATE') store.loadGuilds().catch(report);
      if (guildId && guildId === openRef.current && (GUILD_EVENTS.test(event) || event === 'GUILD_CREATE')) store.loadGuild(guildId).catch(report);
      if (event === 'GUILD_CREATE') store.guildCreate(data as { id: string; voice_states?: { channel_id: string | null; user_id: string }[] });
      if (event === 'VOICE_STATE_UPDATE') store.voiceStateUpdate(data as { guild_id?: string; channel_id: string | null; user_id: string });
      if (event === 'READY' && openRef.current) store.loadGuild(openRef.current).catch(report);
    });
    gateway.start().catch(report);
    return () => {
      off();
      gateway.stop();
    };
  }, []);

  useEffect(() => {
    if (openGuild) store.loadGuild(openGuild).catch(report);
  }, [openGuild]);

  // A path under /app that the app does not know: home, in place of it in the history.
  useEffect(() => {
    if (route.name === 'notFound') navigate({ name: 'home' }, true);
  }, [route.name]);

  const guild = openGuild ? state.guilds?.find((g) => g.id === openGuild) : undefined;
  let main;
  if (route.name === 'invite') main = <InviteAccept store={store} code={route.code} />;
  else if (route.name === 'store') main = <StorePage key={route.applicationId} applicationId={route.applicationId} />;
  else if (route.name === 'subscriptions') main = <SubscriptionsPage />;
  else if (route.name === 'quests') main = <QuestsPage key={route.applicationId} applicationId={route.applicationId} />;
  else if (route.name === 'dms') main = <DmView channelId={route.channelId} />;
  else if (route.name === 'activity') main = <ActivityView key={route.applicationId} applicationId={route.applicationId} />;
  else if (route.name === 'guild') {
    if (!state.guilds) main = <Empty>Loading…</Empty>;
    else if (!guild) main = <Empty>You are not a member of this guild.</Empty>;
    else main = <GuildView key={guild.id} store={store} guild={guild} detail={state.detail[guild.id]} channelId={route.channelId} />;
  } else if (route.name === 'notFound') main = null;
  else main = <Home store={store} guildCount={state.guilds?.length ?? 0} />;

  return (
    <div class="shell">
      <GuildRail guilds={state.guilds} selected={openGuild} home={route.name === 'home'} />
      <div class="shell-main">
        {state.error && (
          <Notice kind="error" onClose={() => store.clearError()}>
            {state.error}
          </Notice>
        )}
        {main}
      </div>
      <CheckoutHost />
      <InteractionHost />
      <ActivityLauncher />
    </div>
  );
}
