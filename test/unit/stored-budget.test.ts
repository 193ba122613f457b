// A stored workflow version written before the expression budget (workflows/expression-budget.ts)
// and over it does not run: each run fails at once with invalid_step_config naming the step and
// the bound, nothing compiled; the check is made once per version.
import test from 'ava';
import { runningServices } from '../helpers/services.js';
import { waitStep } from '../helpers/workflows.js';

/** A wait step whose reason holds `count` distinct expressions. */
const crowded = (id: string, count: number) => ({
  id,
  name: id,
  type: 'wait',
  config: {
    duration_seconds: 0,
    reason: Array.from({ length: count }, (_, i) => `{{trigger.payload.f${i}}}`).join(' '),
  },
});

test('a stored version over the expression budget fails its runs at once, naming the step', async (t) => {
  const services = runningServices(t);
  const workspaceId = services.workspaces.defaultWorkspaceId;
  const workflow = services.workflows.create(workspaceId, {
    name: 'old',
    steps: [waitStep('first', 0, 'crowded'), crowded('crowded', 10)],
  });
  // As a daemon before the bound stored it: 501 expressions in the second step.
  services.db
    .prepare('UPDATE workflow_versions SET steps = ? WHERE workflow_id = ?')
    .run(JSON.stringify([waitStep('first', 0, 'crowded'), crowded('crowded', 501)]), workflow.id);

  const definition = services.workflows.definition(workflow.id, 1)!;
  t.is(definition.refusal?.stepId, 'crowded');
  t.is(services.workflows.definition(workflow.id, 1), definition, 'checked once per version');

  const run = services.engine.start(workspaceId, workflow.id, { input: {} });
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  const ended = services.engine.find(run.execution_id)!;
  t.is(ended.status, 'failed');
  t.is(ended.failed_step, 'crowded');
  t.is(ended.error?.code, 'invalid_step_config');
  t.regex(ended.error!.message, /Version 1 of this workflow was stored before the bound/);
  t.regex(ended.error!.message, /more than 500 expressions/);
  t.regex(ended.error!.message, /PATCH/);
  t.deepEqual(ended.step_results, [], 'no step ran');
});

test('a version within the budget runs as before', async (t) => {
  const services = runningServices(t);
  const workspaceId = services.workspaces.defaultWorkspaceId;
  const workflow = services.workflows.create(workspaceId, {
    name: 'fine',
    steps: [crowded('few', 500)],
  });
  t.is(services.workflows.definition(workflow.id, 1)!.refusal, undefined);
  const run = services.engine.start(workspaceId, workflow.id, { input: {} });
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  t.is(services.engine.find(run.execution_id)!.status, 'completed');
});
