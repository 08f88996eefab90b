// The WebRTC data-channel transport in headless Chromium, without a server: the transport's
// offer (what Select Protocol would carry) is answered by a second peer connection in the page
// standing in for the relay, and packets cross the unordered, no-retransmit `media` channel.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
let browser: Browser | undefined;
let bundle = '';

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`);
  const result = await build({
    stdin: {
      contents: `
        import { WebRtcMediaTransport } from './src/voice/transports/WebRtcMediaTransport.ts';
        window.runLoopback = async () => {
          const received = [];
          let closed = '';
          const transport = new WebRtcMediaTransport({ packet: (p) => received.push(Array.from(p)), closed: (r) => (closed = r) });
          const data = await transport.prepare({ ssrc: 1, ip: '', port: 0, modes: [] });
          // The relay's side: answer the offer, echo every packet back with its first byte + 1.
          const relay = new RTCPeerConnection({ iceServers: [] });
          const relayChannels = [];
          relay.ondatachannel = (event) => {
            const channel = event.channel;
            relayChannels.push({ label: channel.label, ordered: channel.ordered, maxRetransmits: channel.maxRetransmits });
            channel.binaryType = 'arraybuffer';
            channel.onmessage = (e) => { const b = new Uint8Array(e.data); b[0] += 1; channel.send(b); };
          };
          await relay.setRemoteDescription({ type: 'offer', sdp: data.sdp });
          await relay.setLocalDescription(await relay.createAnswer());
          await new Promise((r) => (relay.iceGatheringState === 'complete' ? r() : relay.addEventListener('icegatheringstatechange', () => relay.iceGatheringState === 'complete' && r())));
          await transport.start({ mode: 'aead_aes256_gcm_rtpsize', secret_key: [], dave_protocol_version: 1, sdp: relay.localDescription.sdp });
          for (let i = 0; i < 5; i++) transport.send(new Uint8Array([10 * i, 1, 2, 3]));
          const deadline = Date.now() + 5000;
          while (received.length < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
          const open = transport.open;
          relay.close();
          const closeDeadline = Date.now() + 5000;
          while (!closed && Date.now() < closeDeadline) await new Promise((r) => setTimeout(r, 20));
          return { hasSdp: data.sdp.includes('webrtc-datachannel'), open, received, relayChannels, closed };
        };
      `,
      resolveDir: fileURLToPath(new URL('..', import.meta.url)),
      loader: 'ts',
    },
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    logLevel: 'silent',
  });
  bundle = result.outputFiles[0]!.text;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

describe('WebRTC media transport', () => {
  it('offers one unordered, no-retransmit channel named media, carries packets both ways, reports the loss', async () => {
    const page = await browser!.newPage();
    await page.addScriptTag({ content: bundle });
    const result = await page.evaluate(() => (window as unknown as { runLoopback(): Promise<unknown> }).runLoopback());
    expect(result).toMatchObject({
      hasSdp: true,
      open: true,
      relayChannels: [{ label: 'media', ordered: false, maxRetransmits: 0 }],
    });
    const { received, closed } = result as { received: number[][]; closed: string };
    expect(received.map((p) => p[0]!).sort((a, b) => a - b)).toEqual([1, 11, 21, 31, 41]);
    expect(closed).not.toBe('');
  });
});
