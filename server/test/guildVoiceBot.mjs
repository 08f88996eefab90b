// A discord.js v14 bot with @discordjs/voice and @snazzah/davey, unmodified, run as a child process
// of guildVoiceDiscordjs.test.ts. It trusts the server's self-signed certificate only through
// NODE_EXTRA_CA_CERTS (set by the test): @discordjs/voice always dials wss://<endpoint> with the
// `ws` package and no TLS options of its own. It joins the guild voice channel through the
// guild's voice adapter, then plays a sine tone as Opus until killed. One JSON line per milestone.
import { Readable } from 'node:stream';
import { Client, Events, GatewayIntentBits } from 'discord.js';
import { AudioPlayerStatus, NoSubscriberBehavior, StreamType, VoiceConnectionStatus, createAudioPlayer, createAudioResource, entersState, joinVoiceChannel } from '@discordjs/voice';
import OpusScript from 'opusscript';

const { SL_API, SL_BOT_TOKEN, SL_GUILD_ID, SL_CHANNEL_ID, SL_TONE_HZ } = process.env;
const say = (event, extra = {}) => process.stdout.write(`${JSON.stringify({ event, ...extra })}\n`);

const client = new Client({ intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildVoiceStates], rest: { api: SL_API } });
const ready = new Promise((resolve) => client.once(Events.ClientReady, resolve));
await client.login(SL_BOT_TOKEN);
await ready;
const guild = client.guilds.cache.get(SL_GUILD_ID);
if (!guild) {
  say('error', { message: 'guild not in cache' });
  process.exit(1);
}
say('discordjs-ready');

const connection = joinVoiceChannel({ guildId: SL_GUILD_ID, channelId: SL_CHANNEL_ID, adapterCreator: guild.voiceAdapterCreator, selfDeaf: false, selfMute: false, debug: true });
connection.on('debug', (m) => {
  // Never the voice token (Identify and Resume carry it).
  if (/error|close|dave|session description|ready/i.test(m) && !/token/i.test(m)) say('debug', { message: String(m).slice(0, 300) });
});
connection.on('error', (e) => say('error', { message: String(e?.message ?? e) }));
// Every status change, with the channel: a move (Modify Guild Member channel_id) shows as
// Disconnected (4014) then Connecting and Ready in the new channel.
connection.on('stateChange', (from, to) => say('state', { from: from.status, to: to.status, channel: connection.joinConfig.channelId, ...(to.closeCode ? { closeCode: to.closeCode } : {}) }));
await entersState(connection, VoiceConnectionStatus.Ready, 120_000);
say('voice-ready', { dave: connection.state.networking?.state?.dave ? true : undefined });

// 20 ms stereo Opus frames of a sine at SL_TONE_HZ, generated as the player pulls them.
const hz = Number(SL_TONE_HZ);
const encoder = new OpusScript(48_000, 2, OpusScript.Application.AUDIO);
let sample = 0;
const tone = new Readable({
  objectMode: true,
  read() {
    const pcm = new Int16Array(960 * 2);
    for (let i = 0; i < 960; i++, sample++) {
      const v = Math.round(Math.sin((2 * Math.PI * hz * sample) / 48_000) * 0.4 * 32767);
      pcm[2 * i] = v;
      pcm[2 * i + 1] = v;
    }
    this.push(Buffer.from(encoder.encode(Buffer.from(pcm.buffer), 960)));
  },
});
const player = createAudioPlayer({ behaviors: { noSubscriber: NoSubscriberBehavior.Play } });
player.on('error', (e) => say('error', { message: String(e?.message ?? e) }));
player.on(AudioPlayerStatus.Playing, () => say('playing'));
connection.subscribe(player);
player.play(createAudioResource(tone, { inputType: StreamType.Opus }));

process.on('SIGTERM', () => {
  connection.destroy();
  void client.destroy().finally(() => process.exit(0));
});
