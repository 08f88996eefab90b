import { Empty, Icon } from '../components/ui.tsx';
import type { APIGuildMember, APIRole } from 'discord-api-types/v10';
import { isVoice, type GuildChannel } from '../model/channels.ts';
import { VoicePanel } from './VoicePanel.tsx';
import { MessagePane } from './messages/index.ts';
import { ActivityShelf } from './activity/index.ts';

/**
 * The open channel: a text channel's messages (messages/MessagePane), a voice channel's "Join
 * voice" (VoicePanel). Commands and activities arrive with their own issues and render here.
 */
export function ChannelView({ channel, members = [], inVoice = [], guildId = null, roles = [], channels = [] }: { channel: GuildChannel | null; members?: readonly APIGuildMember[]; inVoice?: readonly string[]; guildId?: string | null; roles?: readonly APIRole[]; channels?: readonly GuildChannel[] }) {
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
        <>
          <VoicePanel key={channel.id} channelId={channel.id} members={members} inVoice={inVoice} />
          <ActivityShelf key={`shelf-${channel.id}`} channelId={channel.id} guildId={guildId} />
        </>
      ) : (
        <MessagePane key={channel.id} channelId={channel.id} channelName={`#${channel.name}`} guildId={guildId} members={members} roles={roles} channels={channels} />
      )}
    </section>
  );
}
