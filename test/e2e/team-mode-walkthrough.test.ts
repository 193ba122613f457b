// Issue 54: team mode's walk-through, run as written. The ```sh tour block of docs/team-mode.md
// ("Several daemons on one sandbox": two daemons on two ports over one PostgreSQL sandbox, svc
// status listing both, one clock moved through one and read through the other, a clean stop)
// runs in one bash, in an empty working folder, with an empty HOME (its ~/svc-a, ~/svc-b and
// ~/team.key) and `svc` on PATH as the built bin/svc.js; each command must succeed and print
// what its `#>` lines say. What the test changes, and only there: the store URL of the block's
// `export SVC_STORE_URL=` (a throwaway cluster's) and its ports 7801 and 7802 (two free ones,
// in the commands and in the `#>` lines alike), so that it never meets another daemon.
import test from 'ava';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { ROOT, runCli, SVC_BIN } from '../helpers/daemon.js';
import { svcEnv } from '../helpers/env.js';
import { closeServer, listenLocally } from '../helpers/local-server.js';
import { throwawayPostgres } from '../helpers/postgres.js';
import { expectation, tourScript, tourSteps, type TourStep } from '../helpers/readme-tour.js';
import { reapDataDir } from '../helpers/reaper.js';
import { tempDir } from '../helpers/temp-dir.js';

const DOC = 'docs/team-mode.md';
const WRITTEN_URL = 'postgres://svc:PASSWORD@localhost:5432/svc';

/** A port nothing listens on now. */
async function freePort(): Promise<string> {
  const server = createServer();
  const origin = await listenLocally(server);
  await closeServer(server);
  return new URL(origin).port;
}

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
  const work = tempDir('svc-team-work-');
  const out = tempDir('svc-team-out-');
  const bin = tempDir('svc-team-bin-');
  writeFileSync(join(bin, 'svc'), `#!/bin/sh\nexec "${process.execPath}" "${SVC_BIN}" "$@"\n`);
  chmodSync(join(bin, 'svc'), 0o755);
  // The caller's environment without SVC_* (SVC_STORE_URL included: the block exports its own).
  const env = svcEnv({ HOME: home, PATH: `${bin}:${process.env.PATH}`, NO_COLOR: '1', CI: 'true' });
  delete env.SVC_STORE_URL;
  for (const name of Object.keys(env)) if (name.startsWith('XDG_')) delete env[name];
  // The block stops its daemons; if it fails before, they are stopped here (and reaped).
  const dataDirs = [join(home, 'svc-a'), join(home, 'svc-b')];
  for (const dataDir of dataDirs) reapDataDir(dataDir, { remove: false });
  const scriptFile = join(out, 'walkthrough.sh');
  writeFileSync(scriptFile, tourScript(steps, out));

  const started = Date.now();
  const bash = spawn('bash', ['--norc', '--noprofile', scriptFile], {
    cwd: work,
    env,
    detached: true,
    stdio: 'ignore',
  });
  t.teardown(async () => {
    try {
      process.kill(-bash.pid!, 'SIGKILL');
    } catch {
      // Ended with the walk-through.
    }
    await Promise.all(
      dataDirs.map((dataDir) =>
        runCli(['daemon', 'stop'], { env: { ...env, SVC_STORE_URL: url, SVC_DATA_DIR: dataDir } }),
      ),
    );
  });
  const code = await new Promise<number | null>((resolve) => bash.on('exit', resolve));
  t.log(`${steps.length} commands in ${Date.now() - started} ms (bash exit ${code})`);

  for (const [index, step] of steps.entries()) {
    const where = `${DOC}:${step.line}: ${step.command.split('\n')[0]}`;
    if (!existsSync(join(out, `${index}.rc`))) {
      t.fail(`${where}: not run (a command before it failed)`);
      break;
    }
    const status = readFileSync(join(out, `${index}.rc`), 'utf8').trim();
    const printed = readFileSync(join(out, `${index}.out`), 'utf8');
    t.is(status, '0', `${where}: exit ${status}\n${printed}`);
    for (const line of step.expect)
      t.regex(printed, expectation(line), `${where}: expected "${line}" in:\n${printed}`);
  }
  t.is(code, 0);
});
