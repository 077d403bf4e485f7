/** Bundles yargs into `outDir`/cli/yargs.js and points `outDir`/cli/main.js's one `import("yargs")` at it. */
export function bundleYargs(outDir: string): Promise<void>;
