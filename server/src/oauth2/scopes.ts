import { expandScopes } from '../auth/Principal.ts';

/**
 * The scopes the provider knows (spec, Authentication 2; public names from protocols.md 2.7).
 * `application.commands` is the spelling of the spec's scope table; the public system spells it
 * `applications.commands`, and both are accepted.
 */
export const KNOWN_SCOPES = new Set([
  'openid',
  'identify',
  'email',
  'guilds',
  'guilds.members.read',
  'guilds.join',
  'connections',
  'relationships.read',
  'relationships.write',
  'activities.read',
  'activities.write',
  'application.commands',
  'applications.commands',
  'applications.commands.update',
  'dm_channels.read',
  'dm_channels.messages.read',
  'dm_channels.messages.write',
  'lobbies.write',
  'voice',
  'identify.premium',
  'sdk.social_layer',
  'sdk.social_layer_presence',
  'rpc',
  'applications.entitlements',
]);

/**
 * Scopes only approved applications may request: identify.premium is for approved partners (spec);
 * rpc reads the player's guilds and channels and dm_channels.read lists their DMs, which the
 * public platform grants only to approved applications too.
 */
export const PRIVILEGED_SCOPES = new Set(['identify.premium', 'rpc', 'dm_channels.read']);

/** What the client_credentials grant may ask for (protocols.md 2.7). */
export const CLIENT_CREDENTIALS_SCOPES = new Set(['identify', 'applications.commands.update', 'applications.commands', 'application.commands', 'guilds']);

/** Scopes a child token may carry: publisher-level linking gives limited access. */
export const CHILD_TOKEN_SCOPES = new Set(['openid', 'identify', 'sdk.social_layer', 'sdk.social_layer_presence', 'relationships.read', 'activities.write']);

export const SCOPE_DESCRIPTIONS: Record<string, string> = {
  openid: 'Sign you in with your Social Layer account (OpenID Connect)',
  identify: 'Know your username, display name and avatar',
  email: 'Know your email address',
  guilds: 'Know which servers you are in',
  'guilds.members.read': 'Read your member profile in your servers',
  'guilds.join': 'Join servers for you (the app’s bot adds you)',
  connections: 'Know your linked accounts',
  'relationships.read': 'Read your friends list',
  'relationships.write': 'Send and answer friend requests for you',
  'activities.read': 'See what you are playing',
  'activities.write': 'Show what you are playing in this game (rich presence)',
  'application.commands': 'Use this app’s commands across servers and direct messages',
  'applications.commands': 'Use this app’s commands across servers and direct messages',
  'applications.commands.update': 'Update this app’s commands',
  'dm_channels.read': 'See your direct message channels',
  'dm_channels.messages.read': 'Read your direct messages in this game',
  'dm_channels.messages.write': 'Send direct messages for you in this game',
  'lobbies.write': 'Join lobbies and chat in them',
  voice: 'Join voice calls in lobbies',
  'identify.premium': 'Know your premium subscription level',
  'sdk.social_layer': 'Friends, presence, direct messages, lobbies and voice in this game',
  'sdk.social_layer_presence': 'Friends list and rich presence in this game',
  rpc: 'Read your servers and channels through the desktop companion',
  'applications.entitlements': 'See what you own in this game (its entitlements)',
};

export function parseScopeString(s: string): string[] {
  return [...new Set(s.split(' ').filter(Boolean))];
}

/** The first scope an application may not request, or undefined when all are fine. */
export function forbiddenScope(scopes: string[], approved: string): string | undefined {
  const ok = new Set(approved.split(' ').filter(Boolean));
  return scopes.find((s) => !KNOWN_SCOPES.has(s) || (PRIVILEGED_SCOPES.has(s) && !ok.has(s)));
}

/** The scopes stored on an access token: the granted ones plus what sdk.* expand to. */
export function tokenScopes(granted: string[]): string[] {
  return expandScopes(granted);
}
