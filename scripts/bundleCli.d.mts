/** Bundles `outDir`/cli/main.js and the modules it reaches into itself and chunks beside it (scripts/bundleCli.mjs). */
export function bundleCli(outDir: string): Promise<void>;
