// A DM channel as the list and the forward panel show it: shared by DmView and ForwardPanel, which
// MessagePane (inside DmView) opens, so it lives apart from both.

export interface DmUser { id: string; username: string; global_name?: string | null }
export interface DmChannel {
  id: string;
  /** 1 DM, 3 group DM. */
  type: number;
  name?: string | null;
  last_message_id?: string | null;
  recipients: DmUser[];
}

export const userName = (u: DmUser) => u.global_name ?? u.username;

/** A DM is named after the other person; a group DM by its name, else its people. */
export function dmName(c: DmChannel): string {
  if (c.type === 3) return c.name ?? (c.recipients.map(userName).join(', ') || 'Empty group');
  return c.recipients[0] ? userName(c.recipients[0]) : 'Direct message';
}
