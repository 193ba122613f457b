// Runs a document's ```sh tour blocks (readme-tour.ts) as a user would, for the tests that hold
// a document to what it says (readme-tour: README.md; team-mode-walkthrough: docs/team-mode.md):
// one bash in its own process group, `svc` on PATH as the built bin/svc.js, then each command's
// exit code and its `#>` lines checked, each failure naming the document's line.
import type { ExecutionContext } from 'ava';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { SVC_BIN } from './daemon.js';
import { closeServer, listenLocally } from './local-server.js';
import { expectation, tourScript, type TourStep } from './readme-tour.js';
import { tempDir } from './temp-dir.js';

/** A port nothing listens on now. */
export async function freePort(): Promise<string> {
  const server = createServer();
  const origin = await listenLocally(server);
  await closeServer(server);
  return new URL(origin).port;
}

/** A folder holding an `svc` that runs this checkout's built CLI: put it first on PATH. */
export function svcOnPath(prefix: string): string {
  const bin = tempDir(prefix);
  writeFileSync(join(bin, 'svc'), `#!/bin/sh\nexec "${process.execPath}" "${SVC_BIN}" "$@"\n`);
  chmodSync(join(bin, 'svc'), 0o755);
  return bin;
}

export interface TourRun {
  /** Where the steps come from, for the messages: `README.md`, `docs/team-mode.md`. */
  document: string;
  steps: TourStep[];
  env: NodeJS.ProcessEnv;
  /** The working folder (an empty one: nothing lands in the checkout). */
  cwd: string;
  /** Stops what the steps started, should they fail before they stop it themselves. */
  cleanUp: () => Promise<unknown>;
}

/** Runs the steps in one bash and asserts each one's exit code and printed lines. */
export async function runTour(t: ExecutionContext, run: TourRun): Promise<void> {
  const out = tempDir('svc-tour-out-');
  const scriptFile = join(out, 'tour.sh');
  writeFileSync(scriptFile, tourScript(run.steps, out));
  const started = Date.now();
  // Its own process group: what the steps start in the background goes with it.
  const bash = spawn('bash', ['--norc', '--noprofile', scriptFile], {
    cwd: run.cwd,
    env: run.env,
    detached: true,
    stdio: 'ignore',
  });
  t.teardown(async () => {
    try {
      process.kill(-bash.pid!, 'SIGKILL');
    } catch {
      // Ended with the tour.
    }
    await run.cleanUp();
  });
  const code = await new Promise<number | null>((resolve) => bash.on('exit', resolve));
  t.log(`${run.steps.length} commands in ${Date.now() - started} ms (bash exit ${code})`);

  for (const [index, step] of run.steps.entries()) {
    const where = `${run.document}:${step.line}: ${step.command.split('\n')[0]}`;
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
}
