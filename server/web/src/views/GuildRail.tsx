import type { RESTAPIPartialCurrentUserGuild } from 'discord-api-types/v10';
import { currentUser, signOut } from '../api/session.ts';
import { Avatar } from '../components/ui.tsx';
import { navigate } from '../state/router.ts';

/** The guild list: one icon per guild, a button to create one, and the signed-in user. */
export function GuildRail({ guilds, selected, home }: { guilds: RESTAPIPartialCurrentUserGuild[] | null; selected: string | null; home: boolean }) {
  const me = currentUser();
  return (
    <nav class="rail" aria-label="Your guilds">
      <ul class="rail-guilds" id="guild-list">
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
