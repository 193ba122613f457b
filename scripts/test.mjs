// `npm test`: the whole gate, in order: typecheck (sources and tests), lint, import layers
// (.dependency-cruiser.cjs), format check, OpenAPI lint, then the ava suites. Prints one closing line `tests: N passed, N failed`
// (what CI reads) and exits non-zero when any step failed.
import { spawn } from 'node:child_process';

const steps = [
  ['build', 'npm', ['run', '--silent', 'build']],
  ['typecheck', 'npm', ['run', '--silent', 'typecheck']],
  ['lint', 'npm', ['run', '--silent', 'lint']],
  ['import layers', 'npm', ['run', '--silent', 'depcruise']],
  ['format', 'npm', ['run', '--silent', 'format:check']],
  ['openapi lint', 'npm', ['run', '--silent', 'openapi:lint']],
];

function run(command, args, { capture = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'],
    });
    let output = '';
    if (capture) {
      child.stdout.on('data', (chunk) => {
        output += chunk;
        process.stdout.write(chunk);
      });
    }
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

let failedSteps = 0;
for (const [name, command, args] of steps) {
  process.stdout.write(`\n== ${name}\n`);
  const { code } = await run(command, args);
  if (code !== 0) {
    failedSteps += 1;
    process.stdout.write(`== ${name} FAILED (exit ${code})\n`);
  }
}

process.stdout.write('\n== tests (ava)\n');
const ava = await run('npx', ['ava', '--tap'], { capture: true });
const passed = (ava.output.match(/^ok \d+/gm) ?? []).length;
const failed = (ava.output.match(/^not ok \d+/gm) ?? []).length;
const failedTotal = failed + failedSteps + (ava.code !== 0 && failed === 0 ? 1 : 0);
if (failedSteps > 0)
  process.stdout.write(`${failedSteps} gate step(s) failed; each counts as one failed test.\n`);
process.stdout.write(`tests: ${passed} passed, ${failedTotal} failed\n`);
process.exit(failedTotal === 0 && passed > 0 ? 0 : 1);
