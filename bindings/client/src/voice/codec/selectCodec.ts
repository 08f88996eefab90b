import type { OpusCodecFactory } from './OpusCodec.ts';
import { opusScriptCodec } from './OpusScriptCodec.ts';
import { webCodecsOpus, webCodecsOpusSupported } from './WebCodecsOpus.ts';

/** WebCodecs where the browser has Opus in it, else opusscript (Node, older browsers). */
export async function defaultOpusCodec(): Promise<OpusCodecFactory> {
  const isNode = typeof process !== 'undefined' && Boolean(process.versions?.node);
  if (!isNode && (await webCodecsOpusSupported())) return webCodecsOpus;
  return opusScriptCodec;
}

/**
 * setOpusHardwareCoding with a direction turned off: that direction uses opusscript (WASM
 * libopus, software everywhere), the other the default. In Node both are opusscript anyway.
 */
export async function mixedOpusCodec(hardwareEncode: boolean, hardwareDecode: boolean): Promise<OpusCodecFactory> {
  const platform = await defaultOpusCodec();
  const encoder = hardwareEncode ? platform : opusScriptCodec;
  const decoder = hardwareDecode ? platform : opusScriptCodec;
  return {
    name: `${encoder.name}+${decoder.name}`,
    createEncoder: () => encoder.createEncoder(),
    createDecoder: () => decoder.createDecoder(),
  };
}
