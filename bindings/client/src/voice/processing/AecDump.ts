import { nodeFs } from '../../diagnostics/LogFile.ts';
import { interleaveStereo, wavHeader } from './wav.ts';

const SAMPLE_RATE = 48_000;
/** A browser recording is held in memory: at most this long (10 minutes, about 115 MB). */
const MAX_BROWSER_FRAMES = 30_000;

/** Where a finished dump goes: a file (Node) or a download offered by the page (browsers). */
export interface AecDumpResult {
  /** Node: the file's path. */
  path?: string;
  /** Browsers: the recording, also offered as a download named `fileName`. */
  blob?: Blob;
  fileName: string;
}

/**
 * setAecDump (social-sdk-api.md 7.3): a diagnostic recording of one call as a 48 kHz 16-bit
 * stereo WAV, the captured microphone (after input volume, before our processing and the gate)
 * on the left and what the call played (the mix of everyone) on the right, one 20 ms frame of
 * each per tick, so echo and its reference line up. Node writes `<dir>/<name>` as it goes; a
 * browser holds it and offers it as a download when the dump stops.
 */
export class AecDump {
  private readonly fileName: string;
  private fd: number | undefined;
  private path: string | undefined;
  private dataBytes = 0;
  private readonly chunks: Uint8Array[] = [];
  private captured: Int16Array | undefined;
  private finished = false;

  constructor(dir: string, lobbyId: string, private readonly onFinished: (result: AecDumpResult) => void) {
    this.fileName = `social-layer-aec-dump-${lobbyId}-${Date.now()}.wav`;
    const node = nodeFs();
    if (node) {
      const directory = node.path.resolve(dir || '.');
      node.fs.mkdirSync(directory, { recursive: true });
      this.path = node.path.join(directory, this.fileName);
      this.fd = node.fs.openSync(this.path, 'w', 0o600);
      writeAt(this.fd, wavHeader(SAMPLE_RATE, 2, 0), 0);
    }
  }

  /** The captured frame of this tick (copied: the caller recycles its buffer). */
  capture(frame: Int16Array): void {
    this.captured = Int16Array.from(frame);
  }

  /** Ends the tick with what was played (undefined: silence), writing one stereo frame. */
  played(mixed: Int16Array | undefined, frameSamples: number): void {
    if (this.finished) return;
    // A browser recording at its cap drops the frame before building it.
    if (this.fd === undefined && this.chunks.length >= MAX_BROWSER_FRAMES) {
      this.captured = undefined;
      return;
    }
    const left = this.captured ?? new Int16Array(frameSamples);
    const right = mixed ?? new Int16Array(frameSamples);
    this.captured = undefined;
    const bytes = interleaveStereo(left, right);
    if (this.fd !== undefined) writeAt(this.fd, bytes, 44 + this.dataBytes);
    else this.chunks.push(bytes);
    this.dataBytes += bytes.length;
  }

  finish(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.fd !== undefined) {
      writeAt(this.fd, wavHeader(SAMPLE_RATE, 2, this.dataBytes), 0);
      nodeFs()!.fs.closeSync(this.fd);
      this.fd = undefined;
      this.onFinished({ path: this.path!, fileName: this.fileName });
      return;
    }
    const blob = new Blob([wavHeader(SAMPLE_RATE, 2, this.dataBytes), ...this.chunks] as BlobPart[], { type: 'audio/wav' });
    this.chunks.length = 0;
    offerDownload(blob, this.fileName);
    this.onFinished({ blob, fileName: this.fileName });
  }
}

function writeAt(fd: number, bytes: Uint8Array, position: number): void {
  const fs = nodeFs()!.fs as unknown as { writeSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number };
  fs.writeSync(fd, bytes, 0, bytes.length, position);
}

/** The browser's "save this file": a temporary link with `download`, clicked once. */
function offerDownload(blob: Blob, fileName: string): void {
  const doc = (globalThis as { document?: Document }).document;
  if (!doc?.body) return;
  const url = URL.createObjectURL(blob);
  const link = doc.createElement('a');
  link.href = url;
  link.download = fileName;
  link.style.display = 'none';
  doc.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
