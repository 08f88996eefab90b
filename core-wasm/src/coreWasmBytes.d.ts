// The module that scripts/embed.mjs generates at build time (core-wasm/build/coreWasmBytes.js).
// Declared here so that type checking works on a fresh clone before the first build.
declare module '*/build/coreWasmBytes.js' {
  /** core.wasm, base64-encoded. */
  export const CORE_WASM_BASE64: string;
}
