// Where `npm test` spends its time: runs each test file on its own (`ava <file>`, the
// same ava config as the gate) and prints the files slowest first, with their test counts, so
// the next person to speed up the suite starts from figures, not guesses. Needs `npm run build`
// first (the e2e tests run dist/).
//
//   node scripts/test-times.mjs                      every unit and e2e file, one at a time
//   node scripts/test-times.mjs --jobs 2 test/e2e    two files at once, e2e only
//   node scripts/test-times.mjs --top 15 test/e2e/full-disk.test.ts test/unit
//   node scripts/test-times.mjs --steps              the gate's fixed steps (build, typecheck, ...)
//   node scripts/test-times.mjs --from FILE --top 10 the files of a run already made, as `npm test`
//                                                    records them (test/helpers/file-times.ts)
//
// Figures depend on what else the machine runs: compare files with each other, and say the
// load average (printed at the start and the end) when quoting them.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { avaCounts } from './ava-counts.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const AVA = join(ROOT, 'node_modules', 'ava', 'entrypoints', 'cli.mjs');
// The gate's fixed steps, as scripts/test.mjs runs them.
const GATE_STEPS = ['build', 'typecheck', 'lint', 'depcruise', 'format:check', 'openapi:lint'];

function parseArgs(argv) {
  const options = { jobs: 1, top: Infinity, steps: false, from: undefined, targets: [] };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--jobs') options.jobs = Number(argv[(i += 1)]);
    else if (arg === '--top') options.top = Number(argv[(i += 1)]);
    else if (arg === '--steps') options.steps = true;
    else if (arg === '--from') options.from = argv[(i += 1)];
    else if (arg === '--help' || arg === '-h') {
      process.stdout.write(
        'usage: node scripts/test-times.mjs [--jobs N] [--top N] [--steps | --from FILE] [file or folder ...]\n',
      );
      process.exit(0);
    } else options.targets.push(arg);
  }
  if (!Number.isInteger(options.jobs) || options.jobs < 1) {
    process.stderr.write('--jobs takes a whole number of files to run at once, e.g. --jobs 2\n');
    process.exit(2);
  }
  return options;
}

/** Test files under the given files or folders (default: test/unit and test/e2e). */
function testFiles(targets) {
  const files = [];
  const visit = (path) => {
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort()) visit(join(path, name));
    } else if (path.endsWith('.test.ts')) files.push(relative(ROOT, path));
  };
  for (const target of targets.length ? targets : ['test/unit', 'test/e2e']) {
    visit(resolve(ROOT, target));
  }
  return files;
}

// GNU time, when installed, adds the CPU seconds of the run and all its children (daemons and
// CLI processes included): on a shared machine they vary less than wall time, and a file whose
// wall time is far above its CPU time is waiting (sleeps, polling, timeouts), not working.
const GNU_TIME = '/usr/bin/time';
const scratch = mkdtempSync(join(tmpdir(), 'svc-test-times-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
let runs = 0;

/** Runs a command; resolves its wall and CPU seconds, exit code and output. */
function timed(command, args) {
  return new Promise((done) => {
    const timesFile = join(scratch, `times-${(runs += 1)}`);
    const [file, argv] = existsSync(GNU_TIME)
      ? [GNU_TIME, ['-q', '-f', '%U %S', '-o', timesFile, command, ...args]]
      : [command, args];
    const started = process.hrtime.bigint();
    const child = spawn(file, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      let cpu;
      if (existsSync(timesFile)) {
        const [user, system] = readFileSync(timesFile, 'utf8').trim().split(/\s+/).map(Number);
        cpu = user + system;
      }
      done({ seconds, cpu, code: code ?? 1, output });
    });
  });
}

const cpuText = (cpu) => (cpu === undefined ? '' : cpu.toFixed(1));

const load = () =>
  loadavg()
    .map((figure) => figure.toFixed(2))
    .join(' ');

async function timeFiles(files, jobs) {
  const results = [];
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const file = files[next];
      next += 1;
      const run = await timed(process.execPath, [AVA, file]);
      const { passed, failed } = avaCounts(run.output);
      const result = { file, seconds: run.seconds, cpu: run.cpu, passed, failed, code: run.code };
      results.push(result);
      process.stderr.write(
        `${run.seconds.toFixed(1).padStart(7)} s  ${file}${run.code === 0 ? '' : `  (exit ${run.code}, ${failed} failed)`}\n`,
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, files.length) }, worker));
  return results;
}

async function timeSteps() {
  const results = [];
  for (const step of GATE_STEPS) {
    const run = await timed('npm', ['run', '--silent', step]);
    results.push({ file: `npm run ${step}`, seconds: run.seconds, cpu: run.cpu, code: run.code });
    process.stderr.write(`${run.seconds.toFixed(1).padStart(7)} s  npm run ${step}\n`);
  }
  return results;
}

/** The files of a run already made: one JSON line each ({file, seconds, cpu}), as recorded. */
function recordedFiles(path) {
  const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => ({ ...JSON.parse(line), code: 0 }));
}

const options = parseArgs(process.argv.slice(2));
if (options.from !== undefined) {
  const recorded = recordedFiles(options.from).sort((a, b) => b.seconds - a.seconds);
  const shown = recorded.slice(0, options.top);
  process.stdout.write(
    `slowest test files (${shown.length} of ${recorded.length}; wall s from the worker's start, CPU s without detached daemons):\n`,
  );
  for (const result of shown) {
    process.stdout.write(
      `${result.seconds.toFixed(1).padStart(8)}${cpuText(result.cpu).padStart(8)}  ${result.file}\n`,
    );
  }
  process.exit(0);
}
process.stdout.write(`load average at start: ${load()}\n`);
const started = Date.now();
const results = options.steps
  ? await timeSteps()
  : await timeFiles(testFiles(options.targets), options.jobs);
const wall = (Date.now() - started) / 1000;

results.sort((a, b) => b.seconds - a.seconds);
process.stdout.write('\n    wall     cpu  tests  file\n');
for (const result of results.slice(0, options.top)) {
  const tests = result.passed === undefined ? '' : String(result.passed + result.failed);
  const flag = result.code === 0 ? '' : `  FAILED (exit ${result.code})`;
  process.stdout.write(
    `${result.seconds.toFixed(1).padStart(8)}${cpuText(result.cpu).padStart(8)}  ${tests.padStart(5)}  ${result.file}${flag}\n`,
  );
}
const sum = results.reduce((total, result) => total + result.seconds, 0);
const cpuSum = results.reduce((total, result) => total + (result.cpu ?? 0), 0);
process.stdout.write(
  `\n${results.length} runs, ${sum.toFixed(1)} s summed (${cpuSum.toFixed(1)} s CPU), ${wall.toFixed(1)} s wall (--jobs ${options.jobs}); load average at end: ${load()}\n`,
);
process.exit(results.every((result) => result.code === 0) ? 0 : 1);
