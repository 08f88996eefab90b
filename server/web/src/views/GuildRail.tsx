import type { RESTAPIPartialCurrentUserGuild } from 'discord-api-types/v10';
import { currentUser, signOut } from '../api/session.ts';
import { Avatar } from '../components/ui.tsx';
import { navigate, useRoute } from '../state/router.ts';
import { useDmUnread } from './messages/index.ts';

/** The guild list: one icon per guild, a button to create one, and the signed-in user. */
export function GuildRail({ guilds, selected, home }: { guilds: RESTAPIPartialCurrentUserGuild[] | null; selected: string | null; home: boolean }) {
  const me = currentUser();
  const dms = useRoute().name === 'dms';
  const unreadDms = useDmUnread().size;
  return (
    <nav class="rail" aria-label="Your guilds">
      <ul class="rail-guilds" id="guild-list">
        <li>
          <a
            href="/app/dms"
            class={`rail-guild rail-dms${dms ? ' rail-guild-active' : ''}`}
            title="Direct messages"
            id="rail-dms"
            aria-current={dms ? 'page' : undefined}
            onClick={(e) => {
              e.preventDefault();
              navigate({ name: 'dms' });
            }}
          >
            <span class={`ui-avatar ui-avatar-md ui-avatar-add rail-dms-icon${dms ? ' ui-avatar-active' : ''}`} aria-hidden="true">
              <svg viewBox="0 0 24 24" width="22" height="22"><path fill="none" stroke="currentColor" stroke-width="2" stroke-linejoin="round" d="M4 5h16v11H9l-5 4z" /></svg>
            </span>
            <span class="rail-label">Direct messages</span>
            {unreadDms > 0 && <span class="unread-dot rail-unread" id="rail-dms-unread" aria-label={`${unreadDms} conversations with new messages`} />}
          </a>
        </li>
        {(guilds ?? []).map((g) => (
          <li key={g.id}>
            <a
              href={`/app/guilds/${g.id}`}
              class={`rail-guild${g.id === selected ? ' rail-guild-active' : ''}`}
              title={g.name}
              data-guild-id={g.id}
              aria-current={g.id === selected ? 'page' : undefined}
              onClick={(e) => {
                e.preventDefault();
                navigate({ name: 'guild', guildId: g.id });
              }}
            >
              <Avatar id={g.id} name={g.name} active={g.id === selected} />
              <span class="rail-label">{g.name}</span>
            </a>
          </li>
        ))}
        <li>
          <a
            href="/app"
            class={`rail-guild rail-add${home ? ' rail-guild-active' : ''}`}
            title="Create a guild"
            id="rail-create"
            onClick={(e) => {
              e.preventDefault();
              navigate({ name: 'home' });
            }}
          >
            <span class="ui-avatar ui-avatar-md ui-avatar-add" aria-hidden="true">+</span>
            <span class="rail-label">Create a guild</span>
          </a>
        </li>
      </ul>
      <div class="rail-me">
        <a
          href="/app/subscriptions"
          class="rail-shop"
          id="rail-subscriptions"
          title="Your subscriptions"
          onClick={(e) => {
            e.preventDefault();
            navigate({ name: 'subscriptions' });
          }}
        >
          <svg class="ui-icon" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
            <path fill="none" stroke="currentColor" stroke-width="2" stroke-linejoin="round" d="M3 4h2l2.4 11h10.2L20 8H6.3" />
            <circle cx="9" cy="19.5" r="1.5" fill="currentColor" />
            <circle cx="17" cy="19.5" r="1.5" fill="currentColor" />
          </svg>
          <span class="rail-label">Your subscriptions</span>
        </a>
        {me && (
          <a href="/account" title={`Signed in as @${me.username}: your account`} id="me">
            <Avatar id={me.id} name={me.global_name ?? me.username} size="sm" />
          </a>
        )}
        <button type="button" class="rail-signout" id="sign-out" onClick={() => void signOut()} title="Sign out">
          Sign out
        </button>
      </div>
    </nav>
  );
}
