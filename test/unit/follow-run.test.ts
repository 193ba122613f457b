// followRun's --timeout (svc workflows run|trigger|rerun --wait --timeout): what it answers does
// not depend on how fast the machine is. A deadline that passes while the run is being started
// (the whole --timeout spent on the POST, on a busy machine) still answers the run as read once
// (found under load by waits-parked: `--json` then printed an execution without its status).
import test from 'ava';
import { followRun } from '../../cli/follow-run.js';
import type { CliContext } from '../../cli/context.js';
import type { ApiClient } from '../../shared/api-client.js';
import type { Execution } from '../../cli/workflow-views.js';

// No control channel: followRun then follows by reading alone, as with --api-key.
const ctx = {
  control: () => Promise.reject(new Error('no control channel here')),
} as unknown as CliContext;

function apiAnswering(execution: Partial<Execution>) {
  const reads: string[] = [];
  const api = {
    tenantId: undefined,
    data: (method: string, path: string) => {
      reads.push(`${method} ${path}`);
      return Promise.resolve({ execution_id: 'wex_1', step_results: [], ...execution });
    },
  } as unknown as ApiClient;
  return { api, reads };
}

test('a deadline passed during the start: the run is read once, and answered with its state', async (t) => {
  const { api, reads } = apiAnswering({ status: 'running' });
  const outcome = await followRun({
    ctx,
    api,
    workflowId: 'wfl_1',
    deadline: Date.now() - 1, // spent before the first read, as a slow start spends it
    start: () => Promise.resolve('wex_1'),
    onUpdate: () => undefined,
  });
  t.is(outcome.type, 'timeout');
  t.like(outcome, { executionId: 'wex_1', execution: { status: 'running' } });
  t.deepEqual(reads, ['GET /workflows/wfl_1/executions/wex_1']);
});

test('a deadline passed during the start of a run that ended meanwhile: it is ended', async (t) => {
  const { api } = apiAnswering({ status: 'completed' });
  const outcome = await followRun({
    ctx,
    api,
    workflowId: 'wfl_1',
    deadline: Date.now() - 1,
    start: () => Promise.resolve('wex_1'),
    onUpdate: () => undefined,
  });
  t.is(outcome.type, 'ended');
  t.like(outcome, { execution: { status: 'completed' } });
});
