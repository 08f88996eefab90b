/** Bundles the sample into `outdir` (default dist/): index.html + bundle.js, source maps only with `sourcemap: true`. Resolves to outdir. */
export function build(options?: { outdir?: string; minify?: boolean; sourcemap?: boolean }): Promise<string>;
