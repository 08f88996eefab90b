import type { APIGuildMember, APIRole } from 'discord-api-types/v10';
import { Avatar } from '../components/ui.tsx';
import { memberGroups, memberName, roleColor } from '../model/members.ts';
import { currentUser } from '../api/session.ts';
import { messageUser } from './messages/index.ts';

/** The guild's members grouped by hoisted role, each with their roles (model/members.ts). */
export function MemberList({ guildId, members, roles, ownerId }: { guildId: string; members: APIGuildMember[]; roles: APIRole[]; ownerId?: string }) {
  const meId = currentUser()?.id;
  return (
    <aside class="members" aria-label="Members" id="member-list">
      {memberGroups(members, roles, guildId).map((group) => (
        <section key={group.role?.id ?? 'members'} class="member-group">
          <h3 class="member-group-title">
            {group.role?.name ?? 'Members'} — {group.members.length}
          </h3>
          <ul>
            {group.members.map(({ member, roles: own }) => (
              <li key={member.user.id} class="member" data-user-id={member.user.id}>
                <Avatar id={member.user.id} name={memberName(member)} size="sm" />
                <div class="member-text">
                  <span class="member-name" style={own[0] && roleColor(own[0]) ? { color: roleColor(own[0])! } : undefined}>
                    {memberName(member)}
                    {member.user.id === ownerId && (
                      <span class="owner-badge" title="Guild owner" aria-label="owner">
                        {' '}
                        ♛
                      </span>
                    )}
                    {member.user.bot && <span class="bot-badge">BOT</span>}
                  </span>
                  {own.length > 0 && (
                    <span class="member-roles">
                      {own.map((r) => (
                        <span key={r.id} class="role-chip" data-role-id={r.id}>
                          <span class="role-dot" style={{ background: roleColor(r) ?? '#99a' }} />
                          {r.name}
                        </span>
                      ))}
                    </span>
                  )}
                </div>
                {member.user.id !== meId && !member.user.bot && (
                  <button type="button" class="msg-action member-message" title={`Message ${memberName(member)}`} onClick={() => void messageUser(member.user.id)}>
                    Message
                  </button>
                )}
              </li>
            ))}
          </ul>
        </section>
      ))}
    </aside>
  );
}
