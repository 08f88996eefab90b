// A game backend or bot in plain Node ESM, as a developer writes one against the published
// packages: a guest signs in, joins the lobby named by its secret and says something there.
// `node consumer.mjs API_BASE APPLICATION_ID SECRET TEXT`; prints what it did as JSON.
import { randomUUID } from 'node:crypto';
import { AuthenticationExternalAuthType, AuthorizationTokenType, Client } from '@social-layer/client';
import { GatewayOpcode } from '@social-layer/protocol';
import { encodeFrame } from '@social-layer/rpc';
// The plugins' parts that need no DOM load in Node too (the panels need a page; Phaser itself
// needs a window, so @social-layer/phaser is for browsers only and is not imported here).
import { generateGuestName, LatestOnly } from '@social-layer/ui';
import { SocialLayerComponent } from '@social-layer/babylon';
import { SocialLayer } from '@social-layer/playcanvas';

const [apiBase, applicationId, secret, text] = process.argv.slice(2);
const client = new Client({ apiBase });
try {
  const token = await client.getProvisionalToken(applicationId, AuthenticationExternalAuthType.DeviceId, randomUUID());
  await client.updateToken(AuthorizationTokenType.Bearer, token.accessToken);
  await client.connect();
  const lobbyId = await client.createOrJoinLobby(secret);
  const messageId = await client.sendLobbyMessage(lobbyId, text);
  const loaded = {
    protocol: typeof GatewayOpcode,
    rpc: typeof encodeFrame,
    guestName: typeof generateGuestName(),
    latestOnly: typeof LatestOnly,
    babylon: typeof SocialLayerComponent,
    playcanvas: typeof SocialLayer,
  };
  console.log(JSON.stringify({ userId: client.getCurrentUserV2()?.id, lobbyId, messageId, loaded }));
} finally {
  await client.destroy();
}
