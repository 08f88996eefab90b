import { Empty, Icon } from '../components/ui.tsx';
import { isVoice, type GuildChannel } from '../model/channels.ts';

/**
 * The open channel. Messages, commands and activities arrive with their own issues and render
 * here; until then the channel shows its name and topic. Voice channels say that joining from
 * the web app needs guild voice on the server, which is not built yet.
 */
export function ChannelView({ channel }: { channel: GuildChannel | null }) {
  if (!channel) return <Empty>This guild has no channel you can see.</Empty>;
  const topic = channel.topic;
  return (
    <section class="channel-view" id="channel-view" data-channel-id={channel.id} aria-label={channel.name}>
      <header class="channel-view-header">
        <h2>
          <Icon name={isVoice(channel) ? 'voice' : 'text'} />{' '}
          {channel.name}
        </h2>
        {topic && <p class="muted">{topic}</p>}
      </header>
      {isVoice(channel) ? (
        <Empty>Voice channels can be joined from games and bots. Joining from the web app comes with guild voice on the server.</Empty>
      ) : (
        <Empty>This is the start of #{channel.name}.</Empty>
      )}
    </section>
  );
}
