// `npm run test:e2e:pg [-- FILES...]`: the e2e suite on PostgreSQL. Starts a throwaway cluster
// (scripts/pg-cluster.mjs), runs ava on test/e2e (or the files given) with SVC_STORE_URL set, so
// every daemon the tests start (svc daemon start, --foreground, createSandbox) keeps its sandbox
// there, each in its own schema; then stops the cluster. Tests that test SQLite itself are left
// out, each with its reason (scripts/pg-skips.mjs, the one list). Prints ava's closing lines and
// `tests (postgres): N passed, N failed, N skipped` with the time; exits non-zero on a failure.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { avaCounts } from './ava-counts.mjs';
import { startCluster } from './pg-cluster.mjs';
import { SKIPPED_FILES, SKIPPED_TESTS } from './pg-skips.mjs';

const requested = process.argv.slice(2);
const files = (
  requested.length > 0
    ? requested
    : readdirSync('test/e2e')
        .filter((name) => name.endsWith('.test.ts'))
        .map((name) => join('test/e2e', name))
).filter((file) => {
  const reason = SKIPPED_FILES[file.replace(/^\.\//, '')];
  if (reason) process.stdout.write(`skipped on PostgreSQL: ${file}: ${reason}\n`);
  return !reason;
});
for (const [title, reason] of Object.entries(SKIPPED_TESTS)) {
  process.stdout.write(`skipped on PostgreSQL: "${title}": ${reason}\n`);
}
if (files.length === 0) process.exit(0);

const started = Date.now();
const cluster = await startCluster();
process.stdout.write(`PostgreSQL at ${cluster.url} (${cluster.dir})\n`);
let code = 1;
let output = '';
try {
  const match = Object.keys(SKIPPED_TESTS).flatMap((title) => ['--match', `!${title}`]);
  const child = spawn('npx', ['ava', ...match, ...files], {
    env: { ...process.env, SVC_STORE_URL: cluster.url },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.stdout.on('data', (chunk) => {
    output += chunk;
    process.stdout.write(chunk);
  });
  code = await new Promise((resolve) => child.on('close', (exit) => resolve(exit ?? 1)));
} finally {
  cluster.stop();
}
const { passed, failed, skipped } = avaCounts(output);
const seconds = ((Date.now() - started) / 1000).toFixed(0);
process.stdout.write(
  `tests (postgres): ${passed} passed, ${failed} failed, ${skipped} skipped in ${seconds} s\n`,
);
process.exit(code === 0 && failed === 0 ? 0 : 1);
