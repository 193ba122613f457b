// Which file runs the CLI and the daemon process: the bundle in dist/bundle/ (scripts/bundle.mjs,
// esbuild: one file per entry point and shared chunks) when it is as new as the compiled dist/,
// else the compiled file itself. Loading ~900 modules one by one cost the daemon about half a
// CPU-second of its start and the CLI 0.05 s a call. After a bare `tsc -b` (which rewrites
// dist/tsconfig.tsbuildinfo) the bundle is older than the code, so the compiled files run: an
// edit never runs stale code, and `npm run build` makes the bundle again.
import { statSync } from 'node:fs';
import { join } from 'node:path';

/** Each entry point of the bundle (dist/bundle/<name>.js) and the compiled file it bundles. */
export const BUNDLE_ENTRIES = {
  'cli/main': 'cli/main.js',
  'cli/early-signals': 'cli/early-signals.js',
  'daemon/entry': 'daemon/process/entry.js',
  'daemon/daemon-process': 'daemon/process/daemon-process.js',
  'daemon/stop-signals': 'daemon/process/stop-signals.js',
} as const;

export type BundleEntry = keyof typeof BUNDLE_ENTRIES;

/** Under dist/: the bundle's folder, and the file the bundle step touches once it is complete. */
export const BUNDLE_DIR = 'bundle';
export const BUNDLE_STAMP = 'bundle/complete';
/** What tsc -b (tsconfig.json) rewrites whenever it compiles anything. */
const BUILD_INFO = 'tsconfig.tsbuildinfo';

/** The file to run for an entry point, under the package's dist folder. */
export function entryFile(dist: string, entry: BundleEntry): string {
  return bundleIsCurrent(dist)
    ? join(dist, BUNDLE_DIR, `${entry}.js`)
    : join(dist, BUNDLE_ENTRIES[entry]);
}

function bundleIsCurrent(dist: string): boolean {
  try {
    return statSync(join(dist, BUNDLE_STAMP)).mtimeMs >= statSync(join(dist, BUILD_INFO)).mtimeMs;
  } catch {
    return false; // No bundle (a build without its last step), or no build info.
  }
}
