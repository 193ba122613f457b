// `npm test`: the whole gate: first what it needs from the machine (Chromium, jq, PostgreSQL's
// server binaries: it stops at once, naming the command that installs them), then build, then
// the checks that only read (typecheck of sources and tests, lint, import layers
// (.dependency-cruiser.cjs), format check, OpenAPI lint) side by side, then the ava suites.
// Closes with the slowest test files, the wall time and the CPU seconds the gate used (its whole
// process tree, detached daemons included: scripts/cpu-accounting.mjs), and one line
// `tests: N passed, N failed` (what CI reads); exits non-zero when any step failed.
//
// The checks are independent single-threaded programs, so they share the cores: one at a time
// they took 150 s of CPU end to end, side by side about half that on 2 cores. Each one's output
// is held and printed whole, in the order below, with its time; the longest start first.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { avaCounts } from './ava-counts.mjs';
import { startCpuAccounting } from './cpu-accounting.mjs';
import { postgresBin } from './pg-cluster.mjs';

// What the tests need from the machine: Chromium for the dashboard's browser tests (found as
// test/helpers/browser.ts finds it: SVC_CHROMIUM, then these paths) and jq for the README tour
// (test/e2e/readme-tour.test.ts runs the README's commands, which use it); PostgreSQL's initdb and
// pg_ctl for the store's tests on PostgreSQL and the team-mode e2e files (a throwaway cluster:
// scripts/pg-cluster.mjs finds them as it does here).
const CHROMIUM_PATHS = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
const onPath = (name) =>
  (process.env.PATH ?? '').split(delimiter).some((dir) => dir && existsSync(join(dir, name)));

function missingTools() {
  const missing = [];
  const chromium = [process.env.SVC_CHROMIUM, ...CHROMIUM_PATHS].some((p) => p && existsSync(p));
  if (!chromium) missing.push(['chromium', "the dashboard's browser tests"]);
  if (!onPath('jq')) missing.push(['jq', 'the README tour, test/e2e/readme-tour']);
  try {
    postgresBin();
  } catch {
    missing.push(['postgresql', "team mode's tests, on a throwaway PostgreSQL cluster"]);
  }
  return missing;
}

const missing = missingTools();
if (missing.length > 0) {
  process.stdout.write(
    `npm test needs ${missing.map(([name, why]) => `${name} (${why})`).join(' and ')}, not found here.\n` +
      `Install with: sudo apt-get install -y ${missing.map(([name]) => name).join(' ')}\n` +
      (missing.some(([name]) => name === 'chromium')
        ? '(or set SVC_CHROMIUM to a Chromium or Chrome binary)\n'
        : '') +
      'tests: 0 passed, 1 failed\n',
  );
  process.exit(1);
}

const accounting = startCpuAccounting();
// Each test file's wall and CPU seconds, kept after the gate (.tmp is not tracked) so that the
// whole list can be read again: `node scripts/test-times.mjs --from .tmp/gate-file-times.jsonl`.
mkdirSync('.tmp', { recursive: true });
const fileTimes = resolve('.tmp', 'gate-file-times.jsonl');
rmSync(fileTimes, { force: true });

const build = ['build', 'npm', ['run', '--silent', 'build']];
// Longest first (CPU seconds on a 2-core machine: lint 42, format 31, typecheck 16, the rest 6).
const checks = [
  ['lint', 'npm', ['run', '--silent', 'lint']],
  ['format', 'npm', ['run', '--silent', 'format:check']],
  ['typecheck', 'npm', ['run', '--silent', 'typecheck']],
  ['import layers', 'npm', ['run', '--silent', 'depcruise']],
  ['openapi lint', 'npm', ['run', '--silent', 'openapi:lint']],
];
const printOrder = ['typecheck', 'lint', 'import layers', 'format', 'openapi lint'];

/** Runs a command; `echo` streams its stdout as it comes, else stdout and stderr are held. */
function run(command, args, { echo = true, env = {} } = {}) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', echo ? 'inherit' : 'pipe'],
      env: { ...process.env, ...accounting.env, ...env },
    });
    let output = '';
    const take = (chunk) => {
      output += chunk;
      if (echo) process.stdout.write(chunk);
    };
    child.stdout.on('data', take);
    child.stderr?.on('data', take);
    child.on('close', (code) => {
      resolve({ code: code ?? 1, output, seconds: (Date.now() - started) / 1000 });
    });
  });
}

/** Runs the checks, `slots` at a time; resolves name -> result. */
async function runChecks(slots) {
  const results = new Map();
  let next = 0;
  const worker = async () => {
    while (next < checks.length) {
      const [name, command, args] = checks[next];
      next += 1;
      results.set(name, await run(command, args, { echo: false }));
    }
  };
  await Promise.all(Array.from({ length: Math.min(slots, checks.length) }, worker));
  return results;
}

let failedSteps = 0;
function report(name, { code, seconds }) {
  if (code !== 0) {
    failedSteps += 1;
    process.stdout.write(`== ${name} FAILED (exit ${code}, ${seconds.toFixed(0)} s)\n`);
  } else process.stdout.write(`== ${name} ok (${seconds.toFixed(0)} s)\n`);
}

const gateStarted = Date.now();
process.stdout.write(`\n== ${build[0]}\n`);
report(build[0], await run(build[1], build[2]));

process.stdout.write(`\n== ${printOrder.join(', ')} (side by side)\n`);
const results = await runChecks(Math.max(2, availableParallelism()));
for (const name of printOrder) {
  const result = results.get(name);
  process.stdout.write(`\n== ${name}\n${result.output}`);
  if (result.output && !result.output.endsWith('\n')) process.stdout.write('\n');
  report(name, result);
}

// The ava passes. A second pass of the e2e suite against another store (issue 53) is one more
// entry, e.g. { name: 'e2e on PostgreSQL', args: ['test/e2e'], env: { SVC_STORE_URL: url } }:
// its counts add to the closing line.
const passes = [{ name: 'tests (ava)', args: [], env: {} }];
let passed = 0;
let failed = 0;
let testSeconds = 0;
for (const pass of passes) {
  process.stdout.write(`\n== ${pass.name}\n`);
  const ava = await run('npx', ['ava', ...pass.args], {
    // No dashboard screenshots unless asked (SVC_SCREENSHOTS=1 npm test): they are for a person
    // to look at, not for an assertion, and cost ~0.4 CPU-s each, some 120 a run.
    env: {
      GATE_FILE_TIMES: fileTimes,
      SVC_SCREENSHOTS: process.env.SVC_SCREENSHOTS ?? '0',
      ...pass.env,
    },
  });
  const { passed: passOk, failed: passFailed } = avaCounts(ava.output);
  passed += passOk;
  failed += passFailed + (ava.code !== 0 && passFailed === 0 ? 1 : 0);
  testSeconds += ava.seconds;
}
const failedTotal = failed + failedSteps;

process.stdout.write('\n');
process.stdout.write(
  (
    await run('node', ['scripts/test-times.mjs', '--from', fileTimes, '--top', '10'], {
      echo: false,
    })
  ).output,
);
const cpu = accounting.stop();
const cpuNote = accounting.available
  ? `${cpu.detached.toFixed(0)} s of it in ${cpu.orphans} detached daemon(s)`
  : 'no /proc here: detached daemons not counted';
process.stdout.write(
  `== gate took ${((Date.now() - gateStarted) / 1000).toFixed(0)} s (tests ${testSeconds.toFixed(0)} s); ` +
    `CPU ${cpu.total.toFixed(0)} s, user + system of the whole process tree (${cpuNote})\n`,
);
if (failedSteps > 0)
  process.stdout.write(`${failedSteps} gate step(s) failed; each counts as one failed test.\n`);
process.stdout.write(`tests: ${passed} passed, ${failedTotal} failed\n`);
process.exit(failedTotal === 0 && passed > 0 ? 0 : 1);
