import type { RESTAPIPartialCurrentUserGuild } from 'discord-api-types/v10';
import { useState } from 'preact/hooks';
import { Button, Empty, Tabs } from '../components/ui.tsx';
import { channelTree, defaultChannel, isText } from '../model/channels.ts';
import type { AppState, GuildDetail } from '../state/AppState.ts';
import { AddBotPanel } from './AddBotPanel.tsx';
import { ChannelList } from './ChannelList.tsx';
import { ChannelView } from './ChannelView.tsx';
import { InvitePanel } from './InvitePanel.tsx';
import { MemberList } from './MemberList.tsx';

type Pane = 'channels' | 'channel' | 'members';
const MANAGE = (1n << 5n) | (1n << 3n); // MANAGE_GUILD or ADMINISTRATOR

/**
 * One guild: channels, the open channel and the members side by side on a desktop; on a phone
 * one of them at a time, picked with the tabs under the header.
 */
export function GuildView({ store, guild, detail, channelId }: { store: AppState; guild: RESTAPIPartialCurrentUserGuild; detail: GuildDetail | undefined; channelId?: string }) {
  const [pane, setPane] = useState<Pane>('channel');
  const [panel, setPanel] = useState<'invite' | 'bot' | null>(null);
  if (!detail) return <Empty>Loading {guild.name}…</Empty>;
  const ordered = channelTree(detail.channels).flatMap((g) => g.channels);
  const opening = defaultChannel(detail.channels);
  const channel = detail.channels.find((c) => c.id === channelId) ?? opening ?? ordered[0] ?? null;
  const inviteChannel = channel && isText(channel) ? channel.id : (opening?.id ?? null);
  const canManage = guild.owner || (BigInt(guild.permissions) & MANAGE) !== 0n;
  return (
    <div class="guild" data-pane={pane} id="guild" data-guild-id={guild.id}>
      <header class="guild-header">
        <h1 id="guild-name">{guild.name}</h1>
        <div class="guild-actions">
          <Button id="open-invite" variant="secondary" onClick={() => setPanel(panel === 'invite' ? null : 'invite')}>
            Invite
          </Button>
          {canManage && (
            <Button id="open-add-bot" variant="secondary" onClick={() => setPanel(panel === 'bot' ? null : 'bot')}>
              Add bot
            </Button>
          )}
        </div>
      </header>
      <Tabs
        label="Guild sections"
        value={pane}
        onChange={setPane}
        options={[
          { value: 'channels', label: 'Channels' },
          { value: 'channel', label: channel ? `#${channel.name}` : 'Channel' },
          { value: 'members', label: `Members (${detail.members.length})` },
        ]}
      />
      <div class="guild-body">
        <div class="pane pane-channels" onClick={(e) => (e.target as HTMLElement).closest('a') && setPane('channel')}>
          <ChannelList guildId={guild.id} channels={detail.channels} selected={channel?.id ?? null} />
        </div>
        <div class="pane pane-channel">
          {panel === 'invite' && <InvitePanel store={store} channelId={inviteChannel} onClose={() => setPanel(null)} />}
          {panel === 'bot' && <AddBotPanel guildId={guild.id} onClose={() => setPanel(null)} />}
          <ChannelView channel={channel} members={detail.members} guildId={guild.id} roles={detail.roles} channels={detail.channels} inVoice={channel ? Object.keys(store.state.voice[guild.id] ?? {}).filter((u) => store.state.voice[guild.id]![u] === channel.id) : []} />
        </div>
        <div class="pane pane-members">
          <MemberList guildId={guild.id} members={detail.members} roles={detail.roles} ownerId={detail.guild.owner_id} />
        </div>
      </div>
    </div>
  );
}
