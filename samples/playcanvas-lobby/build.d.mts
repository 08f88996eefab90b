/** Bundles the sample into `outdir` (default dist/): index.html + bundle.js. Resolves to outdir. */
export function build(options?: { outdir?: string; minify?: boolean }): Promise<string>;
