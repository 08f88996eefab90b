/**
 * The AudioWorklet processors, as source text (loaded from a Blob URL, so the client needs no
 * separate file served). Capture posts 20 ms (960-sample) Float32 frames of channel 0;
 * playback plays queued Float32 frames and plays silence when it runs dry, and posts the RMS
 * level of what it played about every 100 ms.
 */
export const WORKLET_SOURCE = `
class SlCapture extends AudioWorkletProcessor {
  constructor() { super(); this.frame = new Float32Array(960); this.at = 0; }
  process(inputs) {
    const input = inputs[0] && inputs[0][0];
    if (input) {
      let i = 0;
      while (i < input.length) {
        const n = Math.min(960 - this.at, input.length - i);
        this.frame.set(input.subarray(i, i + n), this.at);
        this.at += n; i += n;
        if (this.at === 960) { this.port.postMessage(this.frame, [this.frame.buffer]); this.frame = new Float32Array(960); this.at = 0; }
      }
    }
    return true;
  }
}
class SlPlayback extends AudioWorkletProcessor {
  constructor() {
    super();
    this.queue = []; this.current = null; this.at = 0; this.sum = 0; this.count = 0;
    this.port.onmessage = (e) => { if (this.queue.length < 25) this.queue.push(e.data); };
  }
  process(_inputs, outputs) {
    const out = outputs[0][0];
    let i = 0, sum = 0;
    while (i < out.length) {
      if (!this.current) { this.current = this.queue.shift() || null; this.at = 0; if (!this.current) break; }
      const n = Math.min(out.length - i, this.current.length - this.at);
      for (let k = 0; k < n; k++) { const v = this.current[this.at + k]; out[i + k] = v; sum += v * v; }
      i += n; this.at += n;
      if (this.at >= this.current.length) this.current = null;
    }
    for (; i < out.length; i++) out[i] = 0;
    for (let c = 1; c < outputs[0].length; c++) outputs[0][c].set(out);
    // The RMS of what was played, about every 100 ms (level meters, tests).
    this.sum += sum; this.count += out.length;
    if (this.count >= 4800) { this.port.postMessage(Math.sqrt(this.sum / this.count)); this.sum = 0; this.count = 0; }
    return true;
  }
}
registerProcessor('sl-capture', SlCapture);
registerProcessor('sl-playback', SlPlayback);
`;
