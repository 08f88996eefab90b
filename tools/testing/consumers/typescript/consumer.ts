// A TypeScript game backend against the published packages, type-checked in strict mode without
// skipLibCheck under both `moduleResolution: bundler` and `nodenext` (tsconfig.*.json beside it),
// then run: a guest signs in, joins the lobby named by its secret and says something there.
// `node out/consumer.js API_BASE APPLICATION_ID SECRET TEXT`; prints what it did as JSON.
import { randomUUID } from 'node:crypto';
import {
  AuthenticationExternalAuthType,
  AuthorizationTokenType,
  Client,
  ClientStatus,
  type ClientEvents,
  type MessageHandle,
  type TokenExchangeResult,
} from '@social-layer/client';
import { generateGuestName, type GameSessionOptions } from '@social-layer/ui';

export interface Said {
  userId: string;
  lobbyId: string;
  messageId: string;
  content: string | undefined;
}

export async function signInAndSay(apiBase: string, applicationId: string, secret: string, text: string): Promise<Said> {
  const client = new Client({ apiBase });
  try {
    const token: TokenExchangeResult = await client.getProvisionalToken(applicationId, AuthenticationExternalAuthType.DeviceId, randomUUID());
    await client.updateToken(AuthorizationTokenType.Bearer, token.accessToken);
    const statuses: ClientStatus[] = [];
    const onStatus: ClientEvents['statusChanged'] = (status) => statuses.push(status);
    client.on('statusChanged', onStatus);
    await client.connect();
    const userId = client.getCurrentUserV2()?.id;
    if (userId === undefined || client.getStatus() !== ClientStatus.Ready) throw new Error('not ready after connect');
    const lobbyId: string = await client.createOrJoinLobby(secret);
    const messageId: string = await client.sendLobbyMessage(lobbyId, text);
    const message: MessageHandle | undefined = client.getMessageHandle(messageId);
    return { userId, lobbyId, messageId, content: message?.content() };
  } finally {
    await client.destroy();
  }
}

// A browser game's options type-check here too (the quick start's).
export const sessionOptions: GameSessionOptions = { game: 'typescript-consumer' };
export const guestName: string = generateGuestName();

const [apiBase, applicationId, secret, text] = process.argv.slice(2);
if (apiBase && applicationId && secret && text) console.log(JSON.stringify(await signInAndSay(apiBase, applicationId, secret, text)));
