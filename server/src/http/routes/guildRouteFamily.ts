import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../../ServerContext.ts';
import { channelRoutes } from './channels.ts';
import { emojiRoutes } from './emojis.ts';
import { guildBotAuthorizeRoutes } from './guildBotAuthorize.ts';
import { guildInviteRoutes } from './guildInvites.ts';
import { guildMemberRoutes } from './guildMembers.ts';
import { guildRoleRoutes } from './guildRoles.ts';
import { guildRoutes } from './guilds.ts';
import { primaryGuildRoutes } from './primaryGuild.ts';
import { voiceRegionRoutes } from './voiceRegions.ts';

/** Every guild route (issue 10) and the voice regions, registered by createHttpApp with one line. */
export function guildRouteFamily(app: FastifyInstance, ctx: ServerContext): void {
  guildRoutes(app, ctx);
  channelRoutes(app, ctx);
  guildRoleRoutes(app, ctx);
  guildMemberRoutes(app, ctx);
  guildInviteRoutes(app, ctx);
  guildBotAuthorizeRoutes(app, ctx);
  emojiRoutes(app, ctx);
  primaryGuildRoutes(app, ctx);
  voiceRegionRoutes(app, ctx);
}
