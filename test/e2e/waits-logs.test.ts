// A failed attempt that will be retried is a `warn` line too (issue 41, "The daemon's log is
// silent when things fail"): a workflow step attempt (the spec's step_completed event is only
// for the step's final outcome, so the engine tells the log) and a webhook delivery attempt, each
// with when the next attempt is due. Provoked for real on a frozen clock and read back with
// `svc logs --level warn --json`.
import test from 'ava';
import { control } from '../helpers/api.js';
import { sharedDaemon } from '../helpers/setup.js';
import { startReceiver } from '../helpers/receiver.js';
import { apiFor, createWorkflow, waitForExecution } from '../helpers/workflows.js';
import { HANG_TIMEOUT_MS } from '../helpers/waiting.js';

const d = sharedDaemon(test);

interface Line {
  level: string;
  msg: string;
  [field: string]: unknown;
}

/** The warn lines, once `found` holds for them (the log is written in batches, 200 ms at most). */
async function warnLinesUntil(found: (lines: Line[]) => boolean): Promise<Line[]> {
  const deadline = Date.now() + HANG_TIMEOUT_MS;
  for (;;) {
    const result = await d.cli(['logs', '-n', '100000', '--json', '--level', 'warn']);
    if (result.code !== 0) throw new Error(`svc logs: ${result.stderr}`);
    const lines = result.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Line);
    if (found(lines) || Date.now() > deadline) return lines;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

test.serial(
  'a step attempt and a delivery attempt that will be retried are warn lines',
  async (t) => {
    await control(d, 'clock.set', { to: '2031-01-05T09:00:00Z', frozen: true });
    const ws = await d.createWorkspace('retry-logs');
    const api = await apiFor(d, ws);
    const receiver = await startReceiver(t);
    receiver.respondWith(500);

    const workflowId = await createWorkflow(api, {
      name: 'Page until it answers',
      settings: { retry_policy: { max_attempts: 2 } },
      steps: [
        {
          id: 'page',
          name: 'Page',
          type: 'webhook',
          config: { url: receiver.url, method: 'POST', body: { who: 'on-call' } },
        },
      ],
    });
    const started = await api('POST', `/workflows/${workflowId}/execute`, { input: {} });
    const runId = started.body.data.execution_id as string;
    await waitForExecution(api, workflowId, runId, (e) =>
      e.step_results.some((step: any) => step.status === 'retrying'),
    );

    const hook = await api('POST', '/webhooks', {
      url: receiver.url,
      events: ['agent.updated'],
      settings: { retry_policy: { max_attempts: 3 } },
    });
    const hookId = hook.body.data.id as string;
    await control(d, 'events.trigger', { workspace_id: ws, type: 'agent.updated' });
    await d.advance(0);

    const want = (lines: Line[]) => ({
      step: lines.find(
        (l) => l.msg === 'workflow step attempt failed; retrying' && l.execution_id === runId,
      ),
      delivery: lines.find(
        (l) => l.msg === 'webhook delivery attempt failed' && l.webhook_id === hookId,
      ),
    });
    const seen = want(await warnLinesUntil((lines) => Object.values(want(lines)).every(Boolean)));
    t.like(seen.step, {
      level: 'warn',
      workspace_id: ws,
      workflow_id: workflowId,
      step_id: 'page',
      step_type: 'webhook',
      attempt: 1,
      code: 'external_api_error',
      retry_at: '2031-01-05T09:00:01.000Z',
    });
    t.like(seen.delivery, {
      level: 'warn',
      workspace_id: ws,
      attempt: 1,
      http_status: 500,
      delivery_status: 'pending',
      next_attempt_at: '2031-01-05T09:01:00.000Z',
    });
    // Only the final failure is a "workflow step failed" line: none yet.
    const final = (await warnLinesUntil(() => true)).filter(
      (l) => l.msg === 'workflow step failed' && l.execution_id === runId,
    );
    t.deepEqual(final, []);
  },
);
