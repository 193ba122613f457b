// `svc workflows apply -f FILE` (issue 55, point 10): a script that applies the same file twice
// has one workflow, not two. Keyed by the file's name: none of that name is created, one is
// updated when the file differs (naming the fields that changed) or left alone when it does not,
// and several of that name are refused, named, with nothing changed.
import test from 'ava';
import { assertExit, type CliResult } from '../helpers/daemon.js';
import { sharedDaemon } from '../helpers/setup.js';
import { apiFor, workflowFile } from '../helpers/workflows.js';

const d = sharedDaemon(test);

const TRIAGE = `name: Triage
description: Sort incoming tickets
trigger:
  type: manual
steps:
  - id: pause
    name: Short pause
    type: wait
    config:
      duration_seconds: 5
    next_step_id: check
  - id: check
    name: Urgent?
    type: condition
    config:
      condition: trigger.payload.urgent == true
      if_true: late
      if_false: late
  - id: late
    name: Later
    type: wait
    config:
      duration_seconds: 60
settings:
  timeout_seconds: 600
`;

function svc(ws: string, ...args: string[]): Promise<CliResult> {
  return d.cli([...args, '--workspace', ws]);
}

test('apply creates, then leaves an unchanged file alone, then updates naming what changed', async (t) => {
  const ws = await d.createWorkspace('apply-cycle');
  const api = await apiFor(d, ws);
  const file = workflowFile('triage.yaml', TRIAGE);

  const created = await svc(ws, 'workflows', 'apply', '-f', file);
  assertExit(t, created, 0);
  t.regex(created.stdout, /^Created wfl_\w+ "Triage" \(draft\)$/m);

  const again = await svc(ws, 'workflows', 'apply', '-f', file, '--json');
  assertExit(t, again, 0);
  const unchanged = again.json();
  t.is(unchanged.action, 'unchanged');
  t.deepEqual(unchanged.changed, []);
  const id = unchanged.workflow.id as string;
  const stored = await api('GET', `/workflows/${id}`);
  t.is(stored.body.data.updated_at, unchanged.workflow.updated_at, 'not written again');
  t.regex(
    (await svc(ws, 'workflows', 'apply', '-f', file)).stdout,
    /^Unchanged wfl_\w+ "Triage": the file matches it$/m,
  );

  const edited = workflowFile(
    'triage.yaml',
    TRIAGE.replace('duration_seconds: 60', 'duration_seconds: 90')
      .replace('timeout_seconds: 600', 'timeout_seconds: 900')
      .replace('Sort incoming tickets', 'Sort and route incoming tickets'),
  );
  const updated = await svc(ws, 'workflows', 'apply', '-f', edited, '--status', 'active');
  assertExit(t, updated, 0);
  t.regex(
    updated.stdout,
    new RegExp(
      `^Updated ${id} "Triage": description, status, steps \\(changed: late\\), settings\\.timeout_seconds$`,
      'm',
    ),
  );
  const after = (await api('GET', `/workflows/${id}`)).body.data;
  t.is(after.status, 'active');
  t.is(after.steps[2].config.duration_seconds, 90);
  t.is(after.settings.timeout_seconds, 900);

  const list = await api('GET', '/workflows');
  t.is(list.body.data.length, 1, 'one workflow of that name, after three applies');
});

test('apply refuses when several workflows share the name, naming them, and changes nothing', async (t) => {
  const ws = await d.createWorkspace('apply-ambiguous');
  const api = await apiFor(d, ws);
  const file = workflowFile('triage.yaml', TRIAGE);
  const first = await svc(ws, 'workflows', 'create', '-f', file, '--json');
  const second = await svc(ws, 'workflows', 'create', '-f', file, '--json');
  const ids = [first.json().id as string, second.json().id as string];

  const refused = await svc(ws, 'workflows', 'apply', '-f', file);
  assertExit(t, refused, 1);
  t.regex(
    refused.stderr,
    /^Error: 2 workflows are named "Triage": wfl_\w+ \(draft\), wfl_\w+ \(draft\)\./,
  );
  for (const id of ids) t.true(refused.stderr.includes(`${id} (draft)`), refused.stderr);
  t.regex(refused.stderr, /svc workflows update ID -f /);
  t.is((await api('GET', '/workflows')).body.data.length, 2);
});

test('apply needs a name in the file', async (t) => {
  const ws = await d.createWorkspace('apply-nameless');
  const file = workflowFile('nameless.yaml', TRIAGE.replace('name: Triage\n', ''));
  const refused = await svc(ws, 'workflows', 'apply', '-f', file);
  assertExit(t, refused, 2);
  t.regex(
    refused.stderr,
    /apply finds the workflow by its name, and the file has none\. Add name: to the file\./,
  );
});
