import { Empty, Icon } from '../components/ui.tsx';
import type { APIGuildMember } from 'discord-api-types/v10';
import { isVoice, type GuildChannel } from '../model/channels.ts';
import { VoicePanel } from './VoicePanel.tsx';

/**
 * The open channel. Messages, commands and activities arrive with their own issues and render
 * here; until then the channel shows its name and topic. A voice channel offers "Join voice"
 * (VoicePanel).
 */
export function ChannelView({ channel, members = [], inVoice = [] }: { channel: GuildChannel | null; members?: readonly APIGuildMember[]; inVoice?: readonly string[] }) {
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
        <VoicePanel key={channel.id} channelId={channel.id} members={members} inVoice={inVoice} />
      ) : (
        <Empty>This is the start of #{channel.name}.</Empty>
      )}
    </section>
  );
}
