/**
 * The web app's messages (issue 11): `MessagePane` is a text channel's or DM's message view
 * (history and live updates, composer with replies and uploads, edit/delete of one's own, pins,
 * search); ChannelView renders it for text channels. `DmView` is `/app/dms[/ID]`, the DMs and
 * group DMs; `messageUser(id)` opens a DM (the member list's Message button).
 */
export { MessagePane, type MessagePaneProps } from './MessagePane.tsx';
export { DmView, messageUser } from './DmView.tsx';
export { useDmUnread } from './dmUnread.ts';
