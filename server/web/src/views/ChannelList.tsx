import { channelTree, isVoice, type GuildChannel } from '../model/channels.ts';
import { Icon } from '../components/ui.tsx';
import { navigate } from '../state/router.ts';

/** The guild's channels by category, each list in `position` order (model/channels.ts). */
export function ChannelList({ guildId, channels, selected }: { guildId: string; channels: GuildChannel[]; selected: string | null }) {
  return (
    <nav class="channels" aria-label="Channels" id="channel-list">
      {channelTree(channels).map((group) => (
        <div class="channel-group" key={group.category?.id ?? 'none'} data-category-id={group.category?.id}>
          {group.category && <h3 class="channel-category">{group.category.name}</h3>}
          <ul>
            {group.channels.map((c) => (
              <li key={c.id}>
                <a
                  href={`/app/guilds/${guildId}/channels/${c.id}`}
                  class={`channel${c.id === selected ? ' channel-active' : ''}`}
                  data-channel-id={c.id}
                  data-channel-type={c.type}
                  aria-current={c.id === selected ? 'page' : undefined}
                  onClick={(e) => {
                    e.preventDefault();
                    navigate({ name: 'guild', guildId, channelId: c.id });
                  }}
                >
                  <span class="channel-icon">
                    <Icon name={isVoice(c) ? 'voice' : 'text'} />
                  </span>
                  <span class="channel-name">{c.name}</span>
                </a>
              </li>
            ))}
          </ul>
        </div>
      ))}
    </nav>
  );
}
