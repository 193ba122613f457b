// `npm test`: the whole gate: build, then the checks that only read (typecheck of sources and
// tests, lint, import layers (.dependency-cruiser.cjs), format check, OpenAPI lint) side by side,
// then the ava suites. Prints one closing line `tests: N passed, N failed` (what CI reads) and
// exits non-zero when any step failed.
//
// The checks are independent single-threaded programs, so they share the cores: one at a time
// they took 150 s of CPU end to end, side by side about half that on 2 cores. Each one's output
// is held and printed whole, in the order below, with its time; the longest start first.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

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
function run(command, args, { echo = true } = {}) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', echo ? 'inherit' : 'pipe'] });
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

process.stdout.write('\n== tests (ava)\n');
const ava = await run('npx', ['ava', '--tap']);
const passed = (ava.output.match(/^ok \d+/gm) ?? []).length;
const failed = (ava.output.match(/^not ok \d+/gm) ?? []).length;
const failedTotal = failed + failedSteps + (ava.code !== 0 && failed === 0 ? 1 : 0);
process.stdout.write(
  `\n== gate took ${((Date.now() - gateStarted) / 1000).toFixed(0)} s (tests ${ava.seconds.toFixed(0)} s)\n`,
);
if (failedSteps > 0)
  process.stdout.write(`${failedSteps} gate step(s) failed; each counts as one failed test.\n`);
process.stdout.write(`tests: ${passed} passed, ${failedTotal} failed\n`);
process.exit(failedTotal === 0 && passed > 0 ? 0 : 1);
