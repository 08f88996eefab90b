import type { APIGuildMember, APIRole } from 'discord-api-types/v10';

export interface MemberGroup {
  /** The hoisted role the group is named after; null for "Members". */
  role: APIRole | null;
  members: { member: APIGuildMember; roles: APIRole[] }[];
}

export function memberName(m: APIGuildMember): string {
  return m.nick ?? m.user.global_name ?? m.user.username;
}

/** A role's display colour: the gradient's first colour, else the deprecated `color`; null for none. */
export function roleColor(role: APIRole): string | null {
  // `colors` is optional in practice (older payloads), though the type says it is always there.
  const value = (role.colors as APIRole['colors'] | undefined)?.primary_color ?? role.color;
  return value ? `#${value.toString(16).padStart(6, '0')}` : null;
}

/**
 * The member list as the public client groups it: each member under their highest hoisted role
 * (groups by role position, highest first), the rest under "Members"; names alphabetical within a
 * group. Each member's roles come highest first, without @everyone.
 */
export function memberGroups(members: readonly APIGuildMember[], roles: readonly APIRole[], guildId: string): MemberGroup[] {
  const byId = new Map(roles.map((r) => [r.id, r]));
  const groups = new Map<string, MemberGroup>();
  const plain: MemberGroup = { role: null, members: [] };
  for (const member of members) {
    const own = member.roles.map((id) => byId.get(id)).filter((r): r is APIRole => r !== undefined && r.id !== guildId).sort((a, b) => b.position - a.position);
    const hoisted = own.find((r) => r.hoist);
    const group = hoisted ? (groups.get(hoisted.id) ?? groups.set(hoisted.id, { role: hoisted, members: [] }).get(hoisted.id)!) : plain;
    group.members.push({ member, roles: own });
  }
  const ordered = [...groups.values()].sort((a, b) => b.role!.position - a.role!.position);
  if (plain.members.length > 0) ordered.push(plain);
  for (const g of ordered) g.members.sort((a, b) => memberName(a.member).localeCompare(memberName(b.member)));
  return ordered;
}
