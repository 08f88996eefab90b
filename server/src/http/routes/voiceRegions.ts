import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ServerContext } from '../../ServerContext.ts';
import { viewGuild } from '../../guilds/GuildAccess.ts';
import { GUILD_READ, guildCaller } from './guildRouteHelpers.ts';
import { authenticate } from '../auth.ts';

const VoiceRegion = Type.Object({ id: Type.String(), name: Type.String(), custom: Type.Boolean(), deprecated: Type.Boolean(), optimal: Type.Boolean() }, { title: 'VoiceRegion' });

/**
 * The platform's voice regions. Calls are served by the voice node that holds them; there is no
 * choice of region (a channel's `rtc_region` is always null, automatic), so the list is the one
 * region every call uses, and it is the optimal one.
 */
export const VOICE_REGIONS = [{ id: 'automatic', name: 'Automatic', custom: false, deprecated: false, optimal: true }] as const;

/** List Voice Regions, and List Guild Voice Regions (the same list to a member of the guild). */
export function voiceRegionRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/api/v10/voice/regions', { schema: { summary: 'List Voice Regions', response: { 200: Type.Array(VoiceRegion) } }, config: { rateLimit: GUILD_READ } }, async (req) => {
    await authenticate(req, ctx.store);
    return [...VOICE_REGIONS];
  });

  r.get('/api/v10/guilds/:guild_id/regions', { schema: { summary: 'List Guild Voice Regions', params: Type.Object({ guild_id: Type.String() }), response: { 200: Type.Array(VoiceRegion) } }, config: { rateLimit: GUILD_READ } }, async (req) => {
    const caller = await guildCaller(req, ctx);
    await viewGuild(ctx.store, req.params.guild_id, caller.userId);
    return [...VOICE_REGIONS];
  });
}
