// A re-run from a parallel step runs its branches again: the results it keeps from the original
// end before the branches' rows (a parallel step's own row is written at its join, after them),
// so no step is counted twice and steps_completed stays within steps_total.
import test from 'ava';
import { runningServices } from '../helpers/services.js';
import { waitStep } from '../helpers/workflows.js';

test('a re-run from a parallel step keeps only what ran before it', async (t) => {
  const services = runningServices(t);
  const ws = services.workspaces.defaultWorkspaceId;
  const workflow = services.workflows.create(ws, {
    name: 'fan',
    steps: [
      waitStep('start', 0, 'fan'),
      {
        id: 'fan',
        name: 'fan',
        type: 'parallel',
        config: { steps: ['a', 'b'] },
        next_step_id: 'end',
      },
      waitStep('a', 0),
      waitStep('b', 0),
      waitStep('end', 0),
    ],
  });
  const first = await services.runs.execute(ws, workflow.id, {
    input: {},
    wait_for_completion: true,
  });
  t.like(first.execution, { status: 'completed', steps_completed: 5, steps_total: 5 });
  const original = first.execution.execution_id;

  const again = await services.runs.rerun(ws, workflow.id, original, {
    from_step_id: 'fan',
    wait_for_completion: true,
  });
  const run = again.execution as { steps_completed: number; steps_total: number };
  t.like(again.execution, { status: 'completed', steps_completed: 5, steps_total: 5 });
  t.true(run.steps_completed <= run.steps_total);
  const ids = (again.execution as { step_results: { step_id: string }[] }).step_results.map(
    (step) => step.step_id,
  );
  t.is(ids[0], 'start', 'kept from the original');
  t.deepEqual(ids.slice(1).sort(), ['a', 'b', 'end', 'fan'], 'each step of the re-run once');
});

test('a re-run cannot start inside a parallel step branch, however deep, but can after the join', async (t) => {
  const services = runningServices(t);
  const ws = services.workspaces.defaultWorkspaceId;
  const workflow = services.workflows.create(ws, {
    name: 'fan-deep',
    steps: [
      waitStep('start', 0, 'fan'),
      {
        id: 'fan',
        name: 'fan',
        type: 'parallel',
        config: { steps: ['a', 'b'] },
        next_step_id: 'end',
      },
      // 'a2' is in a branch only through a's next_step_id: the walk must follow every edge.
      waitStep('a', 0, 'a2'),
      waitStep('a2', 0),
      waitStep('b', 0),
      waitStep('end', 0),
    ],
  });
  const first = await services.runs.execute(ws, workflow.id, {
    input: {},
    wait_for_completion: true,
  });
  const original = first.execution.execution_id;
  for (const step of ['a', 'a2', 'b']) {
    const error = await t.throwsAsync(() =>
      services.runs.rerun(ws, workflow.id, original, { from_step_id: step }),
    );
    t.like(error, { code: 'invalid_parameter', param: 'from_step_id' }, step);
    t.regex(error!.message, new RegExp(`Step ${step} runs inside a parallel step's branches`));
  }
  const fromEnd = await services.runs.rerun(ws, workflow.id, original, {
    from_step_id: 'end',
    wait_for_completion: true,
  });
  t.like(fromEnd.execution, { status: 'completed', from_step_id: 'end' });
});
