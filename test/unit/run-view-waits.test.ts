// The run view's plain lines (no terminal) for a wait and a retry: when the step goes on, how far
// off on the daemon clock, and the svc clock advance that skips there; the time alone when the
// clock is unknown (cli/run-view.ts with cli/wake-text.ts).
import test from 'ava';
import { RunView } from '../../cli/run-view.js';
import type { Execution, StepResult, WorkflowStep } from '../../cli/workflow-views.js';
import { execution, stepResult } from '../helpers/run-views.js';

const steps: WorkflowStep[] = [
  { id: 'pause', name: 'Pause', type: 'wait' },
  { id: 'page', name: 'Page', type: 'webhook' },
];
const NINE = Date.parse('2026-01-05T09:00:00.000Z');

const STARTED = '2026-01-05T09:00:00.000Z';
const result = (id: string, partial: Partial<StepResult>) =>
  stepResult(steps, id, partial, STARTED);

function run(stepResults: StepResult[]): Execution {
  return execution(STARTED, {
    current_step: stepResults.at(-1)?.step_id ?? null,
    steps_total: 2,
    step_results: stepResults,
  });
}

function plainLines(clock: number | undefined, updates: StepResult[][]): string[] {
  let out = '';
  const view = new RunView({ write: (text: string) => (out += text) }, steps, {
    live: false,
    colour: false,
    clock: () => clock,
  });
  for (const stepResults of updates) view.update(run(stepResults));
  view.close();
  return out.trim().split('\n');
}

test('a waiting step says when it wakes and the advance that skips there', (t) => {
  const lines = plainLines(NINE, [
    [result('pause', { status: 'waiting', wakes_at: '2026-01-05T09:15:00.000Z' })],
  ]);
  t.deepEqual(lines.slice(1), [
    'step pause (wait) started',
    'step pause (wait) waiting, wakes 2026-01-05 09:15:00 (in 15m, sandbox clock); skip there with: svc clock advance 15m',
  ]);
});

test('a retry says when the next attempt goes, seen live or from the middle', (t) => {
  const failed = result('page', {
    status: 'failed',
    duration_ms: 5,
    error: { code: 'external_api_error', message: 'HTTP 500' },
  });
  const retrying = result('page', {
    status: 'retrying',
    attempt: 2,
    wakes_at: '2026-01-05T09:00:02.000Z',
  });
  const retryLine =
    'step page (webhook) retrying (attempt 2), retries 2026-01-05 09:00:02 (in 2s, sandbox clock); skip there with: svc clock advance 2s';
  t.deepEqual(plainLines(NINE, [[failed], [failed, retrying]]).slice(-1), [retryLine]);
  // A watch that starts while the step is already retrying.
  t.deepEqual(plainLines(NINE, [[retrying]]).slice(-1), [retryLine]);
});

test('without the daemon clock the line has the time alone', (t) => {
  const lines = plainLines(undefined, [
    [result('pause', { status: 'waiting', wakes_at: '2026-01-05T09:15:00.000Z' })],
  ]);
  t.is(lines.at(-1), 'step pause (wait) waiting, wakes 2026-01-05 09:15:00 (sandbox clock)');
});
