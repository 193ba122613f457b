// Issue 41: the README's tour, run as written, top to bottom. Every ```sh tour block of README.md
// runs in one bash, in an empty working folder (nothing lands in the checkout), with an empty
// HOME (so a fresh data dir, ~/.local/share/svc) and `svc` on PATH as the built bin/svc.js;
// each command must succeed and print what its `#>` lines say. The one setting the test adds
// is SVC_PORT, a free port, so the tour's daemon never meets another on 7717.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, runCli } from '../helpers/daemon.js';
import { svcEnv } from '../helpers/env.js';
import { tourSteps } from '../helpers/readme-tour.js';
import { reapDataDir } from '../helpers/reaper.js';
import { tempDir } from '../helpers/temp-dir.js';
import { freePort, runTour, svcOnPath } from '../helpers/tour-run.js';

/** The environment of the tour: the caller's, without SVC_* and XDG_* (they would pick the data dir). */
function tourEnv(home: string, bin: string, port: string): NodeJS.ProcessEnv {
  const env = svcEnv({
    HOME: home,
    PATH: `${bin}:${process.env.PATH}`,
    SVC_PORT: port,
    NO_COLOR: '1',
    CI: 'true',
  });
  for (const name of Object.keys(env)) if (name.startsWith('XDG_')) delete env[name];
  return env;
}

test('the README tour runs as written, top to bottom, and prints what it says', async (t) => {
  t.timeout(10 * 60_000);
  const home = tempDir('svc-tour-home-');
  const env = tourEnv(home, svcOnPath('svc-tour-bin-'), await freePort());
  // The tour stops its daemon; if it fails before, the daemon is stopped here (and reaped).
  const dataDir = join(home, '.local', 'share', 'svc');
  reapDataDir(dataDir, { remove: false });
  await runTour(t, {
    document: 'README.md',
    steps: tourSteps(readFileSync(join(ROOT, 'README.md'), 'utf8')),
    env,
    cwd: tempDir('svc-tour-work-'),
    cleanUp: () => runCli(['daemon', 'stop'], { env: { ...env, SVC_DATA_DIR: dataDir } }),
  });
});
