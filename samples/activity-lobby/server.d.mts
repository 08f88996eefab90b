import type { Server } from 'node:http';
/** The activity's token backend: GET /config ({client_id, platform_origin}) and POST /token ({code} -> {access_token, scope, expires_in}). */
export function startTokenBackend(options: { platform: string; clientId: string; clientSecret: string; port?: number; host?: string }): Promise<{ server: Server; port: number; close(): Promise<void> }>;
