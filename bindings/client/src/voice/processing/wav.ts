/** A 44-byte RIFF/WAVE header for 16-bit PCM; `dataBytes` may be patched in later. */
export function wavHeader(sampleRate: number, channels: number, dataBytes: number): Uint8Array {
  const header = new Uint8Array(44);
  const view = new DataView(header.buffer);
  const ascii = (at: number, text: string) => {
    for (let i = 0; i < text.length; i++) header[at + i] = text.charCodeAt(i);
  };
  ascii(0, 'RIFF');
  view.setUint32(4, 36 + dataBytes, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, channels, true);
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * channels * 2, true);
  view.setUint16(32, channels * 2, true);
  view.setUint16(34, 16, true);
  ascii(36, 'data');
  view.setUint32(40, dataBytes, true);
  return header;
}

/** Interleaves two mono frames into little-endian 16-bit stereo bytes. */
export function interleaveStereo(left: Int16Array, right: Int16Array): Uint8Array {
  const n = Math.max(left.length, right.length);
  const out = new Uint8Array(n * 4);
  const view = new DataView(out.buffer);
  for (let i = 0; i < n; i++) {
    view.setInt16(i * 4, left[i] ?? 0, true);
    view.setInt16(i * 4 + 2, right[i] ?? 0, true);
  }
  return out;
}
