/**
 * The app's paths under /app. Deep links are real URLs (the server serves the page at /app/*),
 * so an invite link or a channel can be opened, shared and reloaded. None of them ever carries a
 * credential: the invite code is the invite itself, meant to be shared.
 */
export type Route =
  | { name: 'home' }
  | { name: 'guild'; guildId: string; channelId?: string }
  | { name: 'invite'; code: string }
  | { name: 'notFound' };

const GUILD_PATH = /^\/app\/guilds\/(\d{1,20})(?:\/channels\/(\d{1,20}))?$/;
const INVITE_PATH = /^\/app\/invite\/([A-Za-z0-9-]{1,32})$/;

export function parseRoute(pathname: string): Route {
  const path = pathname.replace(/\/+$/, '') || '/app';
  if (path === '/app') return { name: 'home' };
  let m = GUILD_PATH.exec(path);
  if (m) return m[2] ? { name: 'guild', guildId: m[1]!, channelId: m[2] } : { name: 'guild', guildId: m[1]! };
  m = INVITE_PATH.exec(path);
  if (m) return { name: 'invite', code: m[1]! };
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
  }
}
