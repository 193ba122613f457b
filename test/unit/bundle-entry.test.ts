// The CLI and the daemon run from dist/bundle/ only while the bundle is as new as the compiled
// code (shared/bundle-entry.ts): a `tsc -b` after the bundle, or a build without its last step,
// runs the compiled files, so an edit never runs stale code.
import test from 'ava';
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BUNDLE_DIR, BUNDLE_ENTRIES, BUNDLE_STAMP, entryFile } from '../../shared/bundle-entry.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A dist folder whose build info and bundle stamp were written at the given times (s). */
function distWith(times: { buildInfo?: number; stamp?: number }): string {
  const dist = tempDir('svc-bundle-');
  mkdirSync(join(dist, BUNDLE_DIR), { recursive: true });
  const write = (file: string, seconds: number) => {
    writeFileSync(join(dist, file), '');
    utimesSync(join(dist, file), seconds, seconds);
  };
  if (times.buildInfo !== undefined) write('tsconfig.tsbuildinfo', times.buildInfo);
  if (times.stamp !== undefined) write(BUNDLE_STAMP, times.stamp);
  return dist;
}

test('the bundle runs when it was made after the last compile', (t) => {
  const dist = distWith({ buildInfo: 1_000, stamp: 1_010 });
  t.is(entryFile(dist, 'cli/main'), join(dist, 'bundle', 'cli', 'main.js'));
  t.is(entryFile(dist, 'daemon/entry'), join(dist, 'bundle', 'daemon', 'entry.js'));
});

test('a compile after the bundle (tsc -b) runs the compiled files', (t) => {
  const dist = distWith({ buildInfo: 1_020, stamp: 1_010 });
  t.is(entryFile(dist, 'cli/main'), join(dist, 'cli', 'main.js'));
  t.is(entryFile(dist, 'daemon/entry'), join(dist, 'daemon', 'process', 'entry.js'));
  t.is(entryFile(dist, 'daemon/stop-signals'), join(dist, 'daemon', 'process', 'stop-signals.js'));
});

test('without a complete bundle, or without build info, the compiled files run', (t) => {
  const noStamp = distWith({ buildInfo: 1_000 });
  t.is(entryFile(noStamp, 'cli/early-signals'), join(noStamp, 'cli', 'early-signals.js'));
  const noBuildInfo = distWith({ stamp: 1_000 });
  t.is(entryFile(noBuildInfo, 'cli/main'), join(noBuildInfo, 'cli', 'main.js'));
});

test('the daemon entry keeps the name by which svc recognises its daemons', (t) => {
  // shared/process.ts isSvcDaemon: a process running .../daemon/[process/]entry.js.
  const dist = distWith({ buildInfo: 1_000, stamp: 1_010 });
  t.regex(entryFile(dist, 'daemon/entry'), /[\\/]daemon[\\/]entry\.js$/);
});

test('a built checkout has every entry of the bundle and the compiled file it bundles', (t) => {
  const dist = resolve(import.meta.dirname, '..', '..', 'dist');
  if (!existsSync(join(dist, BUNDLE_STAMP))) {
    t.pass('no bundle here (built without scripts/bundle.mjs)');
    return;
  }
  for (const [entry, compiled] of Object.entries(BUNDLE_ENTRIES)) {
    t.true(existsSync(join(dist, BUNDLE_DIR, `${entry}.js`)), `dist/bundle/${entry}.js`);
    t.true(existsSync(join(dist, compiled)), `dist/${compiled}`);
  }
});
