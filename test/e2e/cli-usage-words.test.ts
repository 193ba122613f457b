// Issue 55, point 9: usage errors that say what to type. `svc completion` with no shell names
// the shells; `svc help workflows run` is that command's help, not its group's; a value outside
// an option's choices (--autonomy L9, --status done) is a usage error (exit 2) naming the
// choices, before any request; a camelCase field in a workflow file gets "Did you mean" its
// snake_case name.
import test from 'ava';
import { assertExit, runCli } from '../helpers/daemon.js';
import { sharedDaemon } from '../helpers/setup.js';
import { workflowFile } from '../helpers/workflows.js';

const d = sharedDaemon(test);

test('svc completion with no shell names bash, zsh and fish (exit 2)', async (t) => {
  const result = await runCli(['completion']);
  assertExit(t, result, 2);
  t.regex(result.stderr, /missing required argument 'shell': bash, zsh or fish/);
  t.is(result.stdout, '');
});

test('svc help workflows run prints the help of workflows run', async (t) => {
  const result = await runCli(['help', 'workflows', 'run']);
  assertExit(t, result, 0);
  t.regex(result.stdout, /^Usage: svc workflows run \[options\] <id>/);
  t.regex(result.stdout, /--wait/);
  const group = await runCli(['help', 'workflows']);
  t.regex(group.stdout, /^Usage: svc workflows \[options\] \[command\]/);
});

test('a value outside the choices is a usage error naming them, before any request', async (t) => {
  // The API would answer 400 in REST words (exit 1): the CLI refuses first.
  const autonomy = await d.cli([
    'agents',
    'create',
    '--name',
    'A',
    '--ontology',
    'retail-v1',
    '--autonomy',
    'L9',
  ]);
  assertExit(t, autonomy, 2);
  t.regex(
    autonomy.stderr,
    /'--autonomy <level>' argument 'L9' is invalid\. Allowed choices are L1, L2, L3, L4\./,
  );

  const status = await d.cli(['workflows', 'executions', 'wfl_x', '--status', 'done']);
  assertExit(t, status, 2);
  t.regex(
    status.stderr,
    /argument 'done' is invalid\. Allowed choices are running, awaiting_approval, completed, failed, cancelled, timeout\./,
  );
  const listed = await d.cli(['workflows', 'list', '--status', 'live']);
  assertExit(t, listed, 2);
  t.regex(listed.stderr, /Allowed choices are draft, active, paused, archived\./);
});

test('a camelCase field gets "Did you mean" its snake_case name', async (t) => {
  const ws = await d.createWorkspace('camel');
  const file = workflowFile(
    'camel.yaml',
    `name: Camel
steps:
  - id: a
    name: A
    type: wait
    config: { duration_seconds: 1 }
    nextStepId: b
  - id: b
    name: B
    type: wait
    config: { duration_seconds: 1 }
`,
  );
  const result = await d.cli(['workflows', 'create', '-f', file, '--workspace', ws]);
  assertExit(t, result, 1);
  t.regex(result.stderr, /Unknown field 'steps\.0\.nextStepId'\. Did you mean 'next_step_id'\?/);

  // In settings too; a key with no snake_case twin keeps the plain refusal.
  const settings = (text: string) =>
    workflowFile(
      'settings.yaml',
      `name: Camel\nsettings: { ${text}: 60 }\nsteps:\n  - { id: a, name: A, type: wait, config: { duration_seconds: 1 } }\n`,
    );
  const timeout = await d.cli([
    'workflows',
    'create',
    '-f',
    settings('timeoutSeconds'),
    '--workspace',
    ws,
  ]);
  assertExit(t, timeout, 1);
  t.regex(
    timeout.stderr,
    /Unknown field 'settings\.timeoutSeconds'\. Did you mean 'timeout_seconds'\?/,
  );
  const other = await d.cli(['workflows', 'create', '-f', settings('fooBar'), '--workspace', ws]);
  assertExit(t, other, 1);
  t.regex(other.stderr, /Unknown field 'settings\.fooBar'\. Remove it; see \/openapi\.json/);
});
