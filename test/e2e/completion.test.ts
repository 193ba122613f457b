// svc completion bash, as a user installs it: bash with the printed script sourced completes
// commands, subcommands and flags from the command table, and ids from the running daemon
// (through the hidden svc __complete, which prints nothing when no daemon answers).
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertExit, runCli, SVC_BIN } from '../helpers/daemon.js';
import { svcEnv } from '../helpers/env.js';
import { sharedDaemon } from '../helpers/setup.js';
import { tempDir } from '../helpers/temp-dir.js';
import { apiFor, createWorkflow } from '../helpers/workflows.js';

const d = sharedDaemon(test);

/** A folder with a `svc` that runs the built CLI, put first on PATH. */
const shimDir = tempDir('svc-completion-');
writeFileSync(join(shimDir, 'svc'), `#!/bin/sh\nexec "${process.execPath}" "${SVC_BIN}" "$@"\n`);
chmodSync(join(shimDir, 'svc'), 0o755);

let scriptFile: string | undefined;

/** The completion script, once, as `svc completion bash` prints it. */
async function script(): Promise<string> {
  if (!scriptFile) {
    const printed = await runCli(['completion', 'bash']);
    if (printed.code !== 0) throw new Error(`svc completion bash: ${printed.stderr}`);
    scriptFile = join(shimDir, 'svc.bash');
    writeFileSync(scriptFile, printed.stdout);
  }
  return scriptFile;
}

/** What bash offers for the typed words (the last one is the word under the cursor). */
async function complete(words: string[], env: NodeJS.ProcessEnv = d.env): Promise<string[]> {
  const line = words.map((word) => `'${word}'`).join(' ');
  const program = `source '${await script()}'
COMP_WORDS=(${line}); COMP_CWORD=${words.length - 1}; COMPREPLY=()
_svc
printf '%s\\n' "\${COMPREPLY[@]}"`;
  const result = spawnSync('bash', ['--norc', '--noprofile', '-c', program], {
    encoding: 'utf8',
    cwd: shimDir,
    // A TAB's 2 s wait for ids is a promise to the user at the keyboard, not a bound this test
    // can hold on a loaded machine: the ids must come, however long the machine takes.
    env: svcEnv({
      ...env,
      SVC_COMPLETE_TIMEOUT_MS: '60000',
      PATH: `${shimDir}:${process.env.PATH}`,
    }),
  });
  if (result.status !== 0) throw new Error(`bash: ${result.stderr}`);
  return result.stdout.split('\n').filter(Boolean);
}

test('svc wor<TAB> completes workflows (and workspaces); subcommands and flags follow', async (t) => {
  t.deepEqual(await complete(['svc', 'wor']), ['workspaces', 'workflows']);
  t.deepEqual(await complete(['svc', 'workflows', 're']), ['rerun']);
  t.deepEqual(await complete(['svc', 'workflows', 'rerun', 'wex_1', '--f']), ['--from-step']);
  t.deepEqual(await complete(['svc', 'clock', 'f']), ['freeze']);
  t.deepEqual(await complete(['svc', 'daemon', 'start', '--env', '']), ['sandbox', 'production']);
  // A global flag's value is skipped: the command path is read after it.
  t.deepEqual(await complete(['svc', '--data-dir', '/tmp', 'webhooks', 'del']), [
    'delete',
    'deliveries',
    'delivery',
  ]);
  t.false((await complete(['svc', ''])).includes('__complete'));
});

test('ids come from the running daemon: workflows, then a workflow runs', async (t) => {
  const { workspaceId } = await d.operator();
  const api = await apiFor(d, workspaceId);
  const workflow = await createWorkflow(api, {
    name: 'Completion',
    status: 'active',
    steps: [{ id: 'pause', name: 'Pause', type: 'wait', config: { duration_seconds: 3600 } }],
    settings: { timeout_seconds: 7200 }, // longer than the wait (a wait as long is refused)
  });
  const run = await api('POST', `/workflows/${workflow}/execute`, { input: {} });
  const execution: string = run.body.data.execution_id;
  t.true((await complete(['svc', 'workflows', 'get', ''])).includes(workflow));
  t.deepEqual(await complete(['svc', 'workflows', 'execution', workflow, 'wex_']), [execution]);
  t.true((await complete(['svc', 'open', 'wfl_'])).includes(workflow));
});

test('with no daemon, svc __complete prints nothing, exits 0, and does not wait', async (t) => {
  // "Does not wait" without a clock: the TAB's budget for ids is set far past runCli's hang guard
  // (RUN_CLI_HANG_MS, 4 min), so a __complete that waited on it instead of seeing at once that
  // no daemon runs fails the test as a hang. A bound in ms compared with another command's time
  // failed on a loaded machine (issue 52) and said nothing the code guarantees.
  const env = {
    SVC_DATA_DIR: tempDir('svc-completion-nodaemon-'),
    SVC_COMPLETE_TIMEOUT_MS: String(10 * 60_000),
  };
  const started = Date.now();
  const listed = await runCli(['__complete', 'workflows'], { env });
  t.log(`svc __complete workflows without a daemon: ${Date.now() - started} ms`);
  assertExit(t, listed, 0);
  t.is(listed.stdout, '');
  t.is(listed.stderr, '');
  t.deepEqual(await complete(['svc', 'workflows', 'get', ''], env), []);
});

test('svc completion with an unknown shell is a usage error naming the shells', async (t) => {
  const answer = await runCli(['completion', 'tcsh']);
  assertExit(t, answer, 2);
  t.regex(answer.stderr, /give one of bash, zsh, fish/);
});
