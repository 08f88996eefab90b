/**
 * The app's paths under /app. Deep links are real URLs (the server serves the page at /app/*),
 * so an invite link or a channel can be opened, shared and reloaded. None of them ever carries a
 * credential: the invite code is the invite itself, meant to be shared.
 */
export type Route =
  | { name: 'home' }
  | { name: 'guild'; guildId: string; channelId?: string }
  | { name: 'invite'; code: string }
  | { name: 'store'; applicationId: string }
  | { name: 'subscriptions' }
  | { name: 'quests'; applicationId: string }
  | { name: 'dms'; channelId?: string }
  /** Issue 17: the channel (and a shared link's custom_id) ride in the query string, read by the view. */
  | { name: 'activity'; applicationId: string }
  | { name: 'notFound' };

const GUILD_PATH = /^\/app\/guilds\/(\d{1,20})(?:\/channels\/(\d{1,20}))?$/;
const INVITE_PATH = /^\/app\/invite\/([A-Za-z0-9-]{1,32})$/;
const STORE_PATH = /^\/app\/store\/(\d{1,20})$/;
const QUESTS_PATH = /^\/app\/quests\/(\d{1,20})$/;
const DMS_PATH = /^\/app\/dms(?:\/(\d{1,20}))?$/;
const ACTIVITY_PATH = /^\/app\/activity\/(\d{1,20})$/;

export function parseRoute(pathname: string): Route {
  const path = pathname.replace(/\/+$/, '') || '/app';
  if (path === '/app') return { name: 'home' };
  let m = GUILD_PATH.exec(path);
  if (m) return m[2] ? { name: 'guild', guildId: m[1]!, channelId: m[2] } : { name: 'guild', guildId: m[1]! };
  m = INVITE_PATH.exec(path);
  if (m) return { name: 'invite', code: m[1]! };
  m = STORE_PATH.exec(path);
  if (m) return { name: 'store', applicationId: m[1]! };
  if (path === '/app/subscriptions') return { name: 'subscriptions' };
  m = QUESTS_PATH.exec(path);
  if (m) return { name: 'quests', applicationId: m[1]! };
  m = DMS_PATH.exec(path);
  if (m) return m[1] ? { name: 'dms', channelId: m[1] } : { name: 'dms' };
  m = ACTIVITY_PATH.exec(path);
  if (m) return { name: 'activity', applicationId: m[1]! };
  return { name: 'notFound' };
}

export function routePath(route: Route): string {
  switch (route.name) {
    case 'home':
    case 'notFound':
      return '/app';
    case 'guild':
      return route.channelId ? `/app/guilds/${route.guildId}/channels/${route.channelId}` : `/app/guilds/${route.guildId}`;
    case 'invite':
      return `/app/invite/${route.code}`;
    case 'store':
      return `/app/store/${route.applicationId}`;
    case 'subscriptions':
      return '/app/subscriptions';
    case 'quests':
      return `/app/quests/${route.applicationId}`;
    case 'dms':
      return route.channelId ? `/app/dms/${route.channelId}` : '/app/dms';
    case 'activity':
      return `/app/activity/${route.applicationId}`;
  }
}
