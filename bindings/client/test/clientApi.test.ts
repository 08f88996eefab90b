// Issue 19, the Client members that need no server: versions, construction options, thread and
// platform hooks, log files and the release/debug logging rule, the device screens, the desktop
// companion seam, UserHandle.avatarUrl, argument checks of every new method, and the
// import graph (no two-file cycle between the handles; lobby logic out of Client.ts).
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { importCircles, importGraph, sourceFiles } from '../../../tools/testing/importGraph.ts';
import {
  ActivityInvite,
  AudioSystem,
  AvatarType,
  Client,
  ClientCreateOptions,
  ClientResultError,
  ClientThread,
  ErrorType,
  LoggingSeverity,
  UserHandle,
  type ClientOptions,
  type DesktopCompanion,
  type DeviceScreen,
} from '../src/index.ts';

const here = dirname(fileURLToPath(import.meta.url));
const clientDir = resolve(here, '..');
const pkg = JSON.parse(readFileSync(join(clientDir, 'package.json'), 'utf8')) as { version: string };
const APP = '1234567890123456789';

function validation(run: () => unknown): ClientResultError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ClientResultError);
    expect((error as ClientResultError).type).toBe(ErrorType.ValidationError);
    return error as ClientResultError;
  }
  throw new Error('expected a ValidationError, nothing was thrown');
}

async function rejectsValidation(promise: Promise<unknown>): Promise<void> {
  await expect(promise).rejects.toMatchObject({ type: ErrorType.ValidationError });
}

const clients: Client[] = [];
function client(...args: [ClientOptions?] | [ClientCreateOptions] | [string, string]): Client {
  const c = typeof args[0] === 'string' ? new Client(args[0], args[1] as string) : new Client(args[0] as ClientOptions | ClientCreateOptions | undefined);
  clients.push(c);
  return c;
}
afterEach(async () => {
  for (const c of clients.splice(0)) await c.destroy();
});

describe('versions', () => {
  it('getVersionMajor/Minor/Patch are the package version, getVersionHash the checkout HEAD', () => {
    const [major, minor, patch] = pkg.version.split('.').map((n) => Number.parseInt(n, 10));
    expect([Client.getVersionMajor(), Client.getVersionMinor(), Client.getVersionPatch()]).toEqual([major, minor, patch]);
    const hash = Client.getVersionHash();
    expect(hash).toMatch(/^[0-9a-f]{40}$/);
    // Others commit to this tree while tests run: the hash must be a commit of it, at or before HEAD.
    execFileSync('git', ['merge-base', '--is-ancestor', hash, 'HEAD'], { cwd: clientDir });
  });
});

describe('construction', () => {
  it('takes (apiBase, webBase), a ClientCreateOptions, or plain options, and keeps the fields', () => {
    const pair = client('http://127.0.0.1:4000/', 'http://127.0.0.1:4001');
    expect(pair.getClientCreateOptions().apiBase()).toBe('http://127.0.0.1:4000');
    expect(pair.getClientCreateOptions().webBase()).toBe('http://127.0.0.1:4001');

    const options = new ClientCreateOptions();
    options.setApiBase('https://social.example');
    options.setExperimentalAudioSystem(AudioSystem.Game);
    options.setExperimentalAndroidPreventCommsForBluetooth(true);
    options.setCpuAffinityMask(0xffn);
    const made = client(options);
    const back = made.getClientCreateOptions();
    expect(back.apiBase()).toBe('https://social.example');
    expect(back.webBase()).toBe('');
    expect(back.experimentalAudioSystem()).toBe(AudioSystem.Game);
    expect(back.experimentalAndroidPreventCommsForBluetooth()).toBe(true);
    expect(back.cpuAffinityMask()).toBe(0xffn);
    expect(back).not.toBe(made.getClientCreateOptions());

    const plain = client({ apiBase: 'http://127.0.0.1:4000', experimentalAudioSystem: AudioSystem.Standard, cpuAffinityMask: 3n });
    expect(plain.getClientCreateOptions().cpuAffinityMask()).toBe(3n);
  });

  it('refuses bad bases and option values with ValidationError', () => {
    const options = new ClientCreateOptions();
    validation(() => options.setApiBase('ftp://x.example'));
    validation(() => options.setWebBase('http://user:pw@x.example'));
    validation(() => options.setApiBase('not a url'));
    validation(() => options.setExperimentalAudioSystem(7 as AudioSystem));
    validation(() => options.setExperimentalAndroidPreventCommsForBluetooth('yes' as unknown as boolean));
    validation(() => options.setCpuAffinityMask(-1n));
    validation(() => options.setCpuAffinityMask(1n << 64n));
    validation(() => options.setCpuAffinityMask(1.5));
    validation(() => new Client('javascript:alert(1)', ''));
    validation(() => new Client({ cpuAffinityMask: -2n }));
  });
});

describe('threads, window, log files and the logging rule', () => {
  it('threadToString names the threads; setThreadPriority and setGameWindowPid check and keep', () => {
    expect(Client.threadToString(ClientThread.Client)).toBe('Client');
    expect(Client.threadToString(ClientThread.Voice)).toBe('Voice');
    expect(Client.threadToString(ClientThread.Network)).toBe('Network');
    const c = client({ apiBase: 'http://127.0.0.1:9' });
    const logs: string[] = [];
    c.addLogCallback((m) => logs.push(m), LoggingSeverity.Info);
    c.setThreadPriority(ClientThread.Voice, 10);
    expect(logs.some((m) => m.includes('setThreadPriority') && m.includes('no effect'))).toBe(true);
    validation(() => c.setThreadPriority(3 as ClientThread, 1));
    validation(() => c.setThreadPriority(ClientThread.Client, 1.5));
    validation(() => c.setThreadPriority(ClientThread.Client, 2 ** 31));
    c.setGameWindowPid(4242);
    validation(() => c.setGameWindowPid(0));
    validation(() => c.setGameWindowPid(-5));
    validation(() => c.setGameWindowPid(Number.NaN));
  });

  it('setLogDir writes the log to a file, tokens masked; bad arguments are refused', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sl-logdir-'));
    try {
      const token = 'abcDEF123.secret-token_value';
      const c = client({ apiBase: 'http://127.0.0.1:9', httpTimeoutMs: 2000 });
      expect(c.setLogDir(dir, LoggingSeverity.Verbose)).toBe(true);
      await c.updateToken(1, token);
      // A failed request logs its path; the Gateway lookup fails here (nothing listens on :9).
      await c.connect().catch(() => undefined);
      c.setThreadPriority(ClientThread.Client, 1);
      const text = await readFile(join(dir, 'social-layer.log'), 'utf8');
      expect(text).toMatch(/INFO setThreadPriority/);
      expect(text).not.toContain(token);
      // None closes it: nothing more is written.
      expect(c.setLogDir(dir, LoggingSeverity.None)).toBe(true);
      validation(() => c.setLogDir(42 as unknown as string, LoggingSeverity.Info));
      validation(() => c.setLogDir(dir, 9 as LoggingSeverity));
      validation(() => c.setLogDir('bad\0path', LoggingSeverity.Info));
      expect(c.setLogDir(join(dir, 'social-layer.log', 'not-a-dir'), LoggingSeverity.Info)).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a release build (NODE_ENV=production) logs Error and Warning only; a debug build everything', () => {
    const saved = process.env.NODE_ENV;
    try {
      process.env.NODE_ENV = 'production';
      const release = client({ apiBase: 'http://127.0.0.1:9' });
      const releaseLogs: number[] = [];
      release.addLogCallback((_m, severity) => releaseLogs.push(severity), LoggingSeverity.Verbose);
      release.setThreadPriority(ClientThread.Client, 1); // Info
      release.setSpeakerMode(true); // voice Info, on the voice log
      process.env.NODE_ENV = 'test';
      const debug = client({ apiBase: 'http://127.0.0.1:9' });
      const debugLogs: number[] = [];
      debug.addLogCallback((_m, severity) => debugLogs.push(severity), LoggingSeverity.Verbose);
      debug.setThreadPriority(ClientThread.Client, 1);
      expect(releaseLogs).toEqual([]);
      expect(debugLogs).toEqual([LoggingSeverity.Info]);
    } finally {
      process.env.NODE_ENV = saved;
    }
  });

  it('voice lines go to addVoiceLogCallback, not to addLogCallback; setVoiceLogDir writes them to a file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sl-voicelog-'));
    try {
      const c = client({ apiBase: 'http://127.0.0.1:9' });
      c.setVoiceLogDir(dir, LoggingSeverity.Info);
      const main: string[] = [];
      const voice: string[] = [];
      c.addLogCallback((m) => main.push(m), LoggingSeverity.Verbose);
      c.addVoiceLogCallback((m) => voice.push(m), LoggingSeverity.Verbose);
      expect(c.setSpeakerMode(true)).toBe(false);
      expect(voice.some((m) => m.startsWith('setSpeakerMode'))).toBe(true);
      expect(main.some((m) => m.startsWith('setSpeakerMode'))).toBe(false);
      expect(await readFile(join(dir, 'social-layer-voice.log'), 'utf8')).toMatch(/INFO setSpeakerMode/);
      validation(() => c.addVoiceLogCallback('x' as never, LoggingSeverity.Info));
      validation(() => c.addVoiceLogCallback(() => undefined, 0 as LoggingSeverity));
      validation(() => c.setVoiceLogDir(dir, 6 as LoggingSeverity));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('audio members: argument rules', () => {
  it('refuses non-booleans and out-of-range thresholds with ValidationError, and keeps good values', async () => {
    const c = client({ apiBase: 'http://127.0.0.1:9' });
    await rejectsValidation(c.setEchoCancellation('on' as unknown as boolean));
    await rejectsValidation(c.setNoiseSuppression(1 as unknown as boolean));
    await rejectsValidation(c.setNoiseCancellation(undefined as unknown as boolean));
    await rejectsValidation(c.setAutomaticGainControl(null as unknown as boolean));
    validation(() => c.setNoAudioInputThreshold(-101));
    validation(() => c.setNoAudioInputThreshold(100.5));
    validation(() => c.setNoAudioInputThreshold(Number.NaN));
    validation(() => c.setNoAudioInputThreshold('-50' as unknown as number));
    validation(() => c.setNoAudioInputCallback('x' as never));
    validation(() => c.setOpusHardwareCoding(true, 'no' as unknown as boolean));
    validation(() => c.setSpeakerMode(0 as unknown as boolean));
    validation(() => c.setEngineManagedAudioSession('yes' as unknown as boolean));
    validation(() => c.setAecDump(1 as unknown as boolean));
    c.setNoAudioInputThreshold(-50);
    c.setOpusHardwareCoding(false, true);
    c.setEngineManagedAudioSession(true);
    await c.setEchoCancellation(false);
    await c.setNoiseCancellation(true);
    // Node has no route picker and no speakerphone.
    expect(c.showAudioRoutePicker()).toBe(false);
    expect(c.setSpeakerMode(false)).toBe(false);
  });
});

describe('device authorization screens', () => {
  it('open shows the code and the activation link on the DeviceScreen; close and dismissal fire the closed callback once each', async () => {
    const c = client('http://127.0.0.1:4000', 'http://127.0.0.1:4001');
    const shown: Parameters<DeviceScreen['open']>[0][] = [];
    let closes = 0;
    c.setAuthorizeDeviceScreen({ open: (info) => shown.push(info), close: () => closes++ });
    let closed = 0;
    c.setAuthorizeDeviceScreenClosedCallback(() => closed++);

    c.openAuthorizeDeviceScreen(APP, 'WXYZ-ABCD');
    expect(shown[0]).toMatchObject({
      clientId: APP,
      userCode: 'WXYZ-ABCD',
      verificationUri: 'http://127.0.0.1:4001/activate',
      verificationUriComplete: 'http://127.0.0.1:4001/activate?user_code=WXYZ-ABCD',
    });
    c.closeAuthorizeDeviceScreen();
    c.closeAuthorizeDeviceScreen(); // nothing open: no second callback
    await Promise.resolve();
    expect([closes, closed]).toEqual([1, 1]);

    c.openAuthorizeDeviceScreen(APP, 'QRST-UVWX');
    shown[1]!.dismissed!(); // the player closed it
    shown[1]!.dismissed!(); // a second click changes nothing
    await Promise.resolve();
    expect(closed).toBe(2);

    validation(() => c.openAuthorizeDeviceScreen('app-12', 'WXYZ-ABCD'));
    validation(() => c.openAuthorizeDeviceScreen(APP, ''));
    validation(() => c.openAuthorizeDeviceScreen(APP, '<script>'));
    validation(() => c.setAuthorizeDeviceScreenClosedCallback('x' as never));
    c.setAuthorizeDeviceScreen(null);
    const noScreen = validation(() => c.openAuthorizeDeviceScreen(APP, 'WXYZ-ABCD'));
    expect(noScreen.error).toMatch(/setAuthorizeDeviceScreen/);
  });
});

describe('the desktop companion seam', () => {
  it('getDiscordClientConnectedUser resolves undefined with no companion; a companion supplies the user and activity joins', async () => {
    const lonely = client({ apiBase: 'http://127.0.0.1:9' });
    await expect(lonely.getDiscordClientConnectedUser(APP)).resolves.toBeUndefined();
    await rejectsValidation(lonely.getDiscordClientConnectedUser('app'));

    const listeners: ((applicationId: string, secret: string) => void)[] = [];
    const asked: string[] = [];
    const companion: DesktopCompanion = {
      async connectedUser(applicationId) {
        asked.push(applicationId);
        return { id: '1111111111111111111', username: 'desk_user', global_name: 'Desk User', avatar: null, discriminator: '0' } as never;
      },
      onActivityJoin(listener) {
        listeners.push(listener);
        return () => listeners.splice(listeners.indexOf(listener), 1);
      },
    };
    const c = client({ apiBase: 'http://127.0.0.1:9', applicationId: APP, desktopCompanion: companion });
    const user = await c.getDiscordClientConnectedUser(APP);
    expect(asked).toEqual([APP]);
    expect(user).toBeInstanceOf(UserHandle);
    expect([user!.id, user!.username, user!.displayName]).toEqual(['1111111111111111111', 'desk_user', 'Desk User']);

    const joins: unknown[][] = [];
    c.setActivityJoinCallback((secret) => joins.push(['join', secret]));
    c.setActivityJoinWithApplicationCallback((applicationId, secret) => joins.push(['withApp', applicationId, secret]));
    listeners[0]!(APP, 'secret-1');
    listeners[0]!('2222222222222222222', 'secret-2'); // another app of the suite: only the WithApplication callback
    expect(joins).toEqual([
      ['withApp', APP, 'secret-1'],
      ['join', 'secret-1'],
      ['withApp', '2222222222222222222', 'secret-2'],
    ]);
    validation(() => c.setActivityJoinCallback(42 as never));
    await c.destroy();
    expect(listeners).toHaveLength(0);
  });
});

describe('users without a server', () => {
  it('getCurrentUser (deprecated) is an empty handle before READY; search and profiles check their arguments', () => {
    const c = client({ apiBase: 'http://127.0.0.1:9' });
    const me = c.getCurrentUser();
    expect([me.id, me.username, me.displayName]).toEqual(['0', '', '']);
    expect(c.getCurrentUserV2()).toBeUndefined();
    expect(c.searchFriendsByUsername('ali')).toEqual([]);
    validation(() => c.searchFriendsByUsername(''));
    validation(() => c.searchFriendsByUsername('   '));
    validation(() => c.searchFriendsByUsername('x'.repeat(33)));
    validation(() => c.searchFriendsByUsername(7 as unknown as string));
    validation(() => c.getUserApplicationProfiles('nope'));
    expect(c.getUserApplicationProfilesNoLock(APP)).toEqual([]);
    validation(() => c.registerLaunchSteamApplication(APP, 0));
    validation(() => c.registerLaunchSteamApplication(APP, 2 ** 32));
    validation(() => c.registerLaunchSteamApplication('x', 480));
    expect(c.registerLaunchSteamApplication(APP, 480)).toBe(true);
  });

  it('setApplicationId checks and keeps the ID; registerLaunchCommand takes http(s) game URLs only, and invites then link to them', () => {
    const c = client({ apiBase: 'http://127.0.0.1:9' });
    c.setApplicationId(APP);
    expect(c.getApplicationId()).toBe(APP);
    validation(() => c.setApplicationId('not-an-id'));
    expect(c.getApplicationId()).toBe(APP);
    for (const bad of ['javascript:alert(1)', 'steam://run/480', 'not a url', '']) expect(c.registerLaunchCommand(APP, bad), bad).toBe(false);
    expect(c.registerLaunchCommand('x', 'https://game.example/play')).toBe(false);
    expect(c.registerLaunchCommand(APP, 'https://game.example/play?mode=coop')).toBe(true);
    // An invite the server sent without its own deep link gets one from the launch URL.
    const invite = ActivityInvite.fromWire({ id: '42', sender_id: '7', channel_id: '8', type: 1, application_id: APP, party_id: 'p', session_id: 's', is_valid: true } as never, 'https://game.example/play?mode=coop');
    expect(invite.url()).toBe('https://game.example/play?mode=coop&invite=42');
  });

  it('avatarUrl: the default avatar without a hash, the type by animation, size checked', () => {
    const c = client({ apiBase: 'http://127.0.0.1:4000' });
    const me = c.getCurrentUser();
    expect(me.avatarUrl(AvatarType.Gif, AvatarType.Png)).toBe('http://127.0.0.1:4000/embed/avatars/0.png');
    expect(me.avatarUrl(AvatarType.Gif, AvatarType.Webp, 128)).toBe('http://127.0.0.1:4000/embed/avatars/0.png?size=128');
    validation(() => me.avatarUrl(9 as AvatarType, AvatarType.Png));
    validation(() => me.avatarUrl(AvatarType.Gif, AvatarType.Png, 100));
    expect(UserHandle.avatarTypeToString(AvatarType.Jpeg)).toBe('Jpeg');
  });
});

describe('shape', () => {
  const src = join(clientDir, 'src');

  it('no import cycle between the client\'s files (the workspace-wide walk, tools/testing/importGraph.ts)', async () => {
    expect(importCircles(importGraph(sourceFiles(src)), src)).toEqual([]);
    // The two handles named in the issue: one direction only.
    const user = await readFile(join(src, 'UserHandle.ts'), 'utf8');
    expect(user).not.toMatch(/^import\s+(?!type)[^;]*'\.\/RelationshipHandle\.ts'/m);
  });

  it('Client.ts keeps no lobby logic: the dispatches and REST calls of lobbies live in src/lobbies/', async () => {
    const text = await readFile(join(src, 'Client.ts'), 'utf8');
    expect(text).not.toMatch(/DispatchEvent\.Lobby|upsertLobby|drainEvents|path: `\/lobbies/);
    const lobbies = await readFile(join(src, 'lobbies/Lobbies.ts'), 'utf8');
    expect(lobbies).toMatch(/DispatchEvent\.LobbyCreate/);
  });
});
