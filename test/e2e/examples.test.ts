// The consumer projects under examples/ (docs/testing.md) run as a user's would: each imports
// svc/testing by the package name, through node_modules/svc linked to this checkout (what
// `npm install` makes of their `"svc": "file:../.."`), and runs its own runner with the runner
// this checkout installs. Nothing is fetched: the test stays offline. jest is not installed
// here, so its example is only checked to parse.
import test from 'ava';
import { spawn } from 'node:child_process';
import { lstatSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ROOT } from '../helpers/daemon.js';

const EXAMPLES = join(ROOT, 'examples');

/** examples/<name>/node_modules/svc -> the checkout, unless something is there already. */
function linkSvc(example: string): string {
  const dir = join(EXAMPLES, example);
  const link = join(dir, 'node_modules', 'svc');
  try {
    lstatSync(link);
  } catch {
    mkdirSync(join(dir, 'node_modules'), { recursive: true });
    symlinkSync('../../..', link, 'dir');
  }
  return dir;
}

/**
 * The environment without the caller's SVC_* settings (the examples must not depend on them),
 * but for SVC_STORE_URL, as svcEnv keeps it: on the PostgreSQL pass the examples' sandboxes
 * (createSandbox honours it) live there too.
 */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { NO_COLOR: '1', FORCE_COLOR: '0' };
  for (const [name, value] of Object.entries(process.env)) {
    const svc = name.startsWith('SVC_') && name !== 'SVC_STORE_URL';
    if (!svc && !name.startsWith('AVA_') && name !== 'NODE_OPTIONS') env[name] = value;
  }
  return env;
}

function run(cwd: string, args: string[]): Promise<{ code: number; output: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd, env: cleanEnv() });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) =>
      resolve({ code: code ?? 1, output, ms: Math.round(performance.now() - started) }),
    );
  });
}

const bin = (path: string) => join(ROOT, 'node_modules', path);

test.serial('examples/node-test: node --test passes its four tests', async (t) => {
  const answer = await run(linkSvc('node-test'), ['--test']);
  t.log(`node --test ${answer.ms} ms`);
  t.is(answer.code, 0, answer.output);
  // Off a terminal, Node 22 reports in TAP (`# pass 4`), later releases in spec (`ℹ pass 4`).
  t.regex(answer.output, /^(ℹ|#) pass 4$/m);
  t.regex(answer.output, /^(ℹ|#) fail 0$/m);
});

test.serial('examples/vitest: vitest run passes its four tests', async (t) => {
  const answer = await run(linkSvc('vitest'), [bin('vitest/vitest.mjs'), 'run']);
  t.log(`vitest run ${answer.ms} ms`);
  t.is(answer.code, 0, answer.output);
  t.regex(answer.output, /Tests\s+4 passed \(4\)/);
});

test.serial('examples/vitest type-checks against the types svc/testing publishes', async (t) => {
  const dir = linkSvc('vitest');
  const answer = await run(dir, [bin('typescript/bin/tsc'), '-p', 'tsconfig.json']);
  t.is(answer.code, 0, answer.output);
});

test.serial('examples/ava: ava passes its four tests (in worker threads)', async (t) => {
  const answer = await run(linkSvc('ava'), [bin('ava/entrypoints/cli.mjs')]);
  t.log(`ava ${answer.ms} ms`);
  t.is(answer.code, 0, answer.output);
  t.regex(answer.output, /4 tests passed/);
});

test('examples/jest parses (jest itself is not installed here)', async (t) => {
  const answer = await run(join(EXAMPLES, 'jest'), ['--check', 'test/orders.test.mjs']);
  t.is(answer.code, 0, answer.output);
});
