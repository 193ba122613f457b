// The run view (cli/run-view.ts) of a run that awaits an approval while another branch runs on:
// it names the step that awaits the approval, not the run's current step (the first active one,
// here the waiting branch), and says so once however many times the run is polled.
import test from 'ava';
import { RunView } from '../../cli/run-view.js';
import type { Execution, StepResult, WorkflowStep } from '../../cli/workflow-views.js';
import { execution, stepResult } from '../helpers/run-views.js';

const steps: WorkflowStep[] = [
  { id: 'slow', name: 'Slow branch', type: 'wait' },
  { id: 'review', name: 'Review', type: 'agent_action' },
  { id: 'second', name: 'Second review', type: 'agent_action' },
];
const NINE = Date.parse('2026-01-05T09:00:00.000Z');

const STARTED = '2026-01-05T09:00:00.000Z';
const result = (id: string, partial: Partial<StepResult>) =>
  stepResult(steps, id, partial, STARTED);

function run(status: Execution['status'], stepResults: StepResult[]): Execution {
  return execution(STARTED, {
    workflow_name: 'Parallel',
    status,
    // As the daemon reports it: the first active step, the waiting branch.
    current_step: stepResults.find((step) => step.completed_at === null)?.step_id ?? null,
    steps_total: steps.length,
    step_results: stepResults,
  });
}

const waiting = result('slow', { status: 'waiting', wakes_at: '2026-01-05T09:15:00.000Z' });
const awaiting = (id: string, execution: string) =>
  result(id, {
    status: 'awaiting_approval',
    result: { agent_id: 'agt_9', agent_execution_id: execution },
  });

function view(live: boolean) {
  let out = '';
  const runView = new RunView({ write: (text: string) => (out += text) }, steps, {
    live,
    colour: false,
    columns: 200,
    clock: () => NINE,
  });
  return { runView, out: () => out };
}

test('plain: the approval step is named, once, while the other branch waits', (t) => {
  const { runView, out } = view(false);
  const polled = run('awaiting_approval', [waiting, awaiting('review', 'exec_9')]);
  // svc workflows run --wait polls each second: the same answer, three times.
  for (let poll = 0; poll < 3; poll += 1) runView.update(polled);
  runView.close();
  t.deepEqual(out().trim().split('\n'), [
    'run wex_1 of wfl_1 started',
    'step slow (wait) started',
    'step slow (wait) waiting, wakes 2026-01-05 09:15:00 (in 15m, sandbox clock); skip there with: svc clock advance 15m',
    'step review (agent_action) started',
    'run wex_1 awaiting approval at step review (decide with: svc approvals approve|reject exec_9)',
  ]);
});

test('plain: a second approval asked while the run already awaits one is named too', (t) => {
  const { runView, out } = view(false);
  runView.update(run('awaiting_approval', [waiting, awaiting('review', 'exec_9')]));
  const both = run('awaiting_approval', [
    waiting,
    awaiting('review', 'exec_9'),
    awaiting('second', 'exec_8'),
  ]);
  runView.update(both);
  runView.update(both);
  runView.close();
  t.deepEqual(out().trim().split('\n').slice(-3), [
    'run wex_1 awaiting approval at step review (decide with: svc approvals approve|reject exec_9)',
    'step second (agent_action) started',
    'step second (agent_action) is awaiting approval (decide with: svc approvals approve|reject exec_8)',
  ]);
});

test('live: the waiting branch stays waiting and the approval step awaits, redraw after redraw', (t) => {
  const { runView, out } = view(true);
  const polled = run('awaiting_approval', [waiting, awaiting('review', 'exec_9')]);
  const blocks: string[][] = [];
  for (let poll = 0; poll < 3; poll += 1) {
    const before = out().length;
    runView.update(polled);
    blocks.push(
      out()
        .slice(before)
        // The cursor moves and line clears of the redraw, then each line's elapsed time.
        // eslint-disable-next-line no-control-regex
        .replace(/\u001b\[\d*[AK]/g, '')
        .replace(/ {2}\d+(ms|s)\b/g, '')
        .trimEnd()
        .split('\n'),
    );
  }
  runView.close();
  const [first] = blocks;
  for (const block of blocks) t.deepEqual(block, first);
  const row = (id: string) => first!.find((line) => line.includes(` ${id} `)) ?? '';
  t.regex(row('slow'), /⏸ slow +wait +waiting/);
  t.regex(row('review'), /\? review +agent_action +awaiting_approval/);
  t.true(first!.includes(' decide with: svc approvals approve|reject exec_9'));
});
