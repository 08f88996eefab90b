import type { OpusCodecFactory } from './OpusCodec.ts';
import { opusScriptCodec } from './OpusScriptCodec.ts';
import { webCodecsOpus, webCodecsOpusSupported } from './WebCodecsOpus.ts';

/** WebCodecs where the browser has Opus in it, else opusscript (Node, older browsers). */
export async function defaultOpusCodec(): Promise<OpusCodecFactory> {
  const isNode = typeof process !== 'undefined' && Boolean(process.versions?.node);
  if (!isNode && (await webCodecsOpusSupported())) return webCodecsOpus;
  return opusScriptCodec;
}
