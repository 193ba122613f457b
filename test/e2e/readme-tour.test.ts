// Issue 41: the README's tour, run as written, top to bottom. Every ```sh tour block of README.md
// runs in one bash, in an empty working folder (nothing lands in the checkout), with an empty
// HOME (so a fresh data dir, ~/.local/share/svc) and `svc` on PATH as the built bin/svc.js;
// each command must succeed and print what its `#>` lines say. The one setting the test adds
// is SVC_PORT, a free port, so the tour's daemon never meets another on 7717.
import test from 'ava';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { ROOT, runCli, SVC_BIN } from '../helpers/daemon.js';
import { svcEnv } from '../helpers/env.js';
import { closeServer, listenLocally } from '../helpers/local-server.js';
import { expectation, tourScript, tourSteps } from '../helpers/readme-tour.js';
import { reapDataDir } from '../helpers/reaper.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A port nothing listens on now. */
async function freePort(): Promise<string> {
  const server = createServer();
  const origin = await listenLocally(server);
  await closeServer(server);
  return new URL(origin).port;
}

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
  const steps = tourSteps(readFileSync(join(ROOT, 'README.md'), 'utf8'));
  const home = tempDir('svc-tour-home-');
  const work = tempDir('svc-tour-work-');
  const out = tempDir('svc-tour-out-');
  const bin = tempDir('svc-tour-bin-');
  writeFileSync(join(bin, 'svc'), `#!/bin/sh\nexec "${process.execPath}" "${SVC_BIN}" "$@"\n`);
  chmodSync(join(bin, 'svc'), 0o755);
  const env = tourEnv(home, bin, await freePort());
  // The tour stops its daemon; if it fails before, the daemon is stopped here (and reaped).
  const dataDir = join(home, '.local', 'share', 'svc');
  reapDataDir(dataDir, { remove: false });
  const scriptFile = join(out, 'tour.sh');
  writeFileSync(scriptFile, tourScript(steps, out));

  const started = Date.now();
  // Its own process group: the receiver the tour starts in the background goes with it.
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
      // Ended with the tour.
    }
    await runCli(['daemon', 'stop'], { env: { ...env, SVC_DATA_DIR: dataDir } });
  });
  const code = await new Promise<number | null>((resolve) => bash.on('exit', resolve));
  t.log(`${steps.length} commands in ${Date.now() - started} ms (bash exit ${code})`);

  for (const [index, step] of steps.entries()) {
    const where = `README.md:${step.line}: ${step.command.split('\n')[0]}`;
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
