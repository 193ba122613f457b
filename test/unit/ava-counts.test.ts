import test from 'ava';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: a plain .mjs script of the gate's, without types
import { avaCounts } from '../../scripts/ava-counts.mjs';

// What ava 6's default reporter printed for two files: a failing test, a skip, a known failure,
// two passes (one with a log line that starts with ✔), and a file whose before hook throws.
const recorded = readFileSync(
  fileURLToPath(new URL('../fixtures/ava-output/default-reporter.txt', import.meta.url)),
  'utf8',
);

test('counts passes, failures and skips from ava default reporter lines', (t) => {
  // Failures: the broken hook, the failing test, and the test the hook left unrun.
  t.deepEqual(avaCounts(recorded), { passed: 3, failed: 3, skipped: 1 });
});

test('a log line or a failure detail that looks like a result is not counted', (t) => {
  const lines = [
    '  ✔ one › passes',
    '    ℹ ✔ looks like a pass',
    '  ✔ two › passes',
    '     ✘ detail',
  ];
  t.deepEqual(avaCounts(lines.join('\n')), { passed: 2, failed: 0, skipped: 0 });
});

test('colours are ignored', (t) => {
  t.deepEqual(avaCounts('  \u001b[32m✔\u001b[39m passes\n  \u001b[31m✘\u001b[39m [fail]: x\n'), {
    passed: 1,
    failed: 1,
    skipped: 0,
  });
});
