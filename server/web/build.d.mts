/** Bundles the web app into `outdir` (default server/web/dist) and resolves to that folder. */
export function build(options?: { outdir?: string; minify?: boolean }): Promise<string>;
