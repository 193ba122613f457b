// Issue 54: team mode's walk-through, run as written. The ```sh tour block of docs/team-mode.md
// ("Several daemons on one sandbox": two daemons on two ports over one PostgreSQL sandbox, svc
// status listing both, one clock moved through one and read through the other, a clean stop)
// runs in one bash, in an empty working folder, with an empty HOME (its ~/svc-a, ~/svc-b and
// ~/team.key) and `svc` on PATH as the built bin/svc.js; each command must succeed and print
// what its `#>` lines say. What the test changes, and only there: the store URL of the block's
// `export SVC_STORE_URL=` (a throwaway cluster's) and its ports 7801 and 7802 (two free ones,
// in the commands and in the `#>` lines alike), so that it never meets another daemon.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, runCli } from '../helpers/daemon.js';
import { svcEnv } from '../helpers/env.js';
import { throwawayPostgres } from '../helpers/postgres.js';
import { tourSteps, type TourStep } from '../helpers/readme-tour.js';
import { reapDataDir } from '../helpers/reaper.js';
import { tempDir } from '../helpers/temp-dir.js';
import { freePort, runTour, svcOnPath } from '../helpers/tour-run.js';

const DOC = 'docs/team-mode.md';
const WRITTEN_URL = 'postgres://svc:PASSWORD@localhost:5432/svc';

/** The steps with the store URL and ports replaced: the only changes to what is written. */
function substituted(steps: TourStep[], url: string, ports: Record<string, string>): TourStep[] {
  const swap = (text: string) =>
    Object.entries(ports).reduce(
      (result, [written, free]) => result.replaceAll(written, free),
      text.replaceAll(WRITTEN_URL, url),
    );
  return steps.map((step) => ({
    ...step,
    command: swap(step.command),
    expect: step.expect.map(swap),
  }));
}

test('the team-mode walk-through runs as written with two daemons on two ports', async (t) => {
  t.timeout(10 * 60_000);
  const written = tourSteps(readFileSync(join(ROOT, DOC), 'utf8'));
  t.true(
    written.some((step) => step.command.includes(`export SVC_STORE_URL=${WRITTEN_URL}`)),
    `${DOC}'s walk-through exports SVC_STORE_URL=${WRITTEN_URL}`,
  );
  const { url } = await throwawayPostgres();
  const steps = substituted(written, url, {
    '7801': await freePort(),
    '7802': await freePort(),
  });
  const home = tempDir('svc-team-home-');
  const bin = svcOnPath('svc-team-bin-');
  // The caller's environment without SVC_* (SVC_STORE_URL included: the block exports its own).
  const env = svcEnv({ HOME: home, PATH: `${bin}:${process.env.PATH}`, NO_COLOR: '1', CI: 'true' });
  delete env.SVC_STORE_URL;
  for (const name of Object.keys(env)) if (name.startsWith('XDG_')) delete env[name];
  // The block stops its daemons; if it fails before, they are stopped here (and reaped).
  const dataDirs = [join(home, 'svc-a'), join(home, 'svc-b')];
  for (const dataDir of dataDirs) reapDataDir(dataDir, { remove: false });
  await runTour(t, {
    document: DOC,
    steps,
    env,
    cwd: tempDir('svc-team-work-'),
    cleanUp: () =>
      Promise.all(
        dataDirs.map((dataDir) =>
          runCli(['daemon', 'stop'], {
            env: { ...env, SVC_STORE_URL: url, SVC_DATA_DIR: dataDir },
          }),
        ),
      ),
  });
});
