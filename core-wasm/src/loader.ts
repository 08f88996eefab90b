/**
 * Instantiates core.wasm from the bytes embedded at build time (no fetch, no fs), so the same
 * code runs in Node and in browser bundles. The module is compiled once and cached; every
 * caller gets its own instance (its own linear memory and state), which is what lets two
 * clients in one process hold separate lobby state and keeps crypto buffers in a memory that
 * does not grow under them.
 */
import { CORE_WASM_BASE64 } from '../build/coreWasmBytes.js';
import type { CoreExports } from './exports.ts';

let compiled: Promise<WebAssembly.Module> | undefined;
let compiledSync: WebAssembly.Module | undefined;

function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The compiled core module (compiled on first use, then cached). */
export function coreModule(): Promise<WebAssembly.Module> {
  if (!compiled) {
    compiled = compiledSync ? Promise.resolve(compiledSync) : WebAssembly.compile(decodeBase64(CORE_WASM_BASE64));
    compiled.then(
      (m) => (compiledSync ??= m),
      () => {},
    );
  }
  return compiled;
}

/** Reads an AssemblyScript string (UTF-16, byte length at ptr - 4) for abort messages. */
function readAsString(memory: WebAssembly.Memory, ptr: number): string {
  if (ptr === 0) return '';
  const view = new DataView(memory.buffer);
  const byteLength = view.getUint32(ptr - 4, true);
  let out = '';
  for (let i = 0; i < byteLength; i += 2) out += String.fromCharCode(view.getUint16(ptr + i, true));
  return out;
}

/** Thrown when the core aborts (a failed assertion or a malformed record): a bug, never input. */
export class CoreAbortError extends Error {
  /** `CoreAbortError`. */
  override name = 'CoreAbortError';
}

function imports(getMemory: () => WebAssembly.Memory | undefined): WebAssembly.Imports {
  return {
    env: {
      abort(messagePtr: number, filePtr: number, line: number, column: number): never {
        const memory = getMemory();
        const message = memory ? readAsString(memory, messagePtr) : 'abort';
        const file = memory ? readAsString(memory, filePtr) : '?';
        throw new CoreAbortError(`core-wasm: ${message} at ${file}:${line}:${column}`);
      },
    },
  };
}

/** A fresh instance of core.wasm with its typed exports. */
export async function instantiateCore(): Promise<CoreExports> {
  const module = await coreModule();
  let memory: WebAssembly.Memory | undefined;
  const instance = await WebAssembly.instantiate(module, imports(() => memory));
  const exports = instance.exports as unknown as CoreExports;
  memory = exports.memory;
  return exports;
}

/**
 * The same, synchronously (for code that must not await, such as a crypto backend opening a
 * further instance mid-call). Compiles synchronously on first use if nothing compiled yet; the
 * module is small (~40 KB), well under browsers' main-thread limit for synchronous compiles.
 */
export function instantiateCoreSync(): CoreExports {
  compiledSync ??= new WebAssembly.Module(decodeBase64(CORE_WASM_BASE64));
  let memory: WebAssembly.Memory | undefined;
  const instance = new WebAssembly.Instance(compiledSync, imports(() => memory));
  const exports = instance.exports as unknown as CoreExports;
  memory = exports.memory;
  return exports;
}
