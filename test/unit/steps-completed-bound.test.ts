// steps_completed never exceeds steps_total. Graphs that reach a step twice while a parallel step
// runs are refused when written (parallel-reach.ts), but one stored before that rule, or brought
// in by a snapshot, still runs the step twice: it counts once.
import test from 'ava';
import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildServices } from '../../daemon/app/services.js';
import { tempDir } from '../helpers/app.js';
import { silent, runningServices } from '../helpers/services.js';
import { waitStep } from '../helpers/workflows.js';

test('a step a stored parallel reaches twice counts once in steps_completed', async (t) => {
  const dir = tempDir();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const first = buildServices({ dataDir: dir, environment: 'sandbox' }, silent);
  const ws = first.workspaces.defaultWorkspaceId;
  const workflow = first.workflows.create(ws, {
    name: 'twice',
    steps: [
      { id: 'p', name: 'p', type: 'parallel', config: { steps: ['a'] }, next_step_id: 'pay' },
      waitStep('a', 0),
      waitStep('pay', 0),
    ],
  });
  first.db.close();

  // As stored before the rule: p: parallel [pay], next_step_id: pay (the first shape).
  const db = new Database(join(dir, 'svc.db'));
  const twice = [
    { id: 'p', name: 'p', type: 'parallel', config: { steps: ['pay'] }, next_step_id: 'pay' },
    { id: 'pay', name: 'pay', type: 'wait', config: { duration_seconds: 0 } },
  ];
  const changed = db
    .prepare('UPDATE workflow_versions SET steps = ? WHERE workflow_id = ?')
    .run(JSON.stringify(twice), workflow.id).changes;
  db.close();
  t.true(changed > 0, 'the stored version was rewritten');

  const services = runningServices(t, dir);
  const run = await services.runs.execute(ws, workflow.id, {
    input: {},
    wait_for_completion: true,
  });
  const execution = run.execution as {
    status: string;
    steps_completed: number;
    steps_total: number;
    step_results: { step_id: string }[];
  };
  t.is(execution.status, 'completed');
  t.is(execution.steps_total, 2);
  t.is(execution.steps_completed, 2, 'p and pay, pay once though it ran twice');
  t.is(execution.step_results.filter((step) => step.step_id === 'pay').length, 2);
});
