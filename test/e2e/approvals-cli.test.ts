// svc approvals (issue 55, point 1): the agent executions waiting for a decision, each with its
// agent, the run and step that asked, what it proposes and how long it has waited; approve and
// reject by the execution id alone; svc agents approve|reject AGENT EXECUTION still works; the
// run views and svc status name the new commands with whole ids.
import test from 'ava';
import { control } from '../helpers/api.js';
import { assertExit } from '../helpers/daemon.js';
import { sharedDaemon } from '../helpers/setup.js';
import {
  activeAgent,
  apiFor,
  createWorkflow,
  waitForExecution,
  type Api,
} from '../helpers/workflows.js';

const d = sharedDaemon(test);

interface Approval {
  execution_id: string;
  agent_id: string;
  agent_name: string | null;
  workspace_id: string;
  workflow_execution_id: string | null;
  step_id: string | null;
  proposed: { action: string; output: string; confidence: number } | null;
  input: string;
  created_at: string;
  waiting_ms: number;
}

async function execute(api: Api, workflowId: string, input: unknown): Promise<string> {
  const started = await api('POST', `/workflows/${workflowId}/execute`, { input });
  if (started.status !== 202 && started.status !== 200)
    throw new Error(`execute: ${started.status} ${JSON.stringify(started.body)}`);
  return started.body.data.execution_id as string;
}

async function parkedRun(api: Api, workflowId: string, text: string) {
  const runId = await execute(api, workflowId, { text });
  return waitForExecution(api, workflowId, runId, (run) => run.status === 'awaiting_approval');
}

test.serial(
  'lists pending approvals with run, step, proposal and time waited; decides them by execution id alone',
  async (t) => {
    // The clock over the control channel, as `svc clock set|advance|reset` move it (tested in
    // cli-operator and waits-cli): a known time for the time waited.
    await control(d, 'clock.set', { to: '2026-01-05T09:00:00Z', frozen: true });
    const ws = await d.createWorkspace('approvals-list');
    const svc = (...args: string[]) => d.cli([...args, '--workspace', ws]);
    const api = await apiFor(d, ws);
    const reviewer = await activeAgent(api, { autonomy_level: 'L2', name: 'Reviewer' });
    const workflowId = await createWorkflow(api, {
      name: 'Needs a human',
      steps: [
        {
          id: 'review',
          name: 'Review',
          type: 'agent_action',
          agent_id: reviewer.id,
          config: { action: 'review', input_mapping: { text: '{{trigger.payload.text}}' } },
        },
      ],
    });
    const first = await parkedRun(api, workflowId, 'refund 40 EUR');
    const second = await parkedRun(api, workflowId, 'refund 90 EUR');
    // One asked outside any workflow (POST /agents/{id}/execute).
    const direct = await api('POST', `/agents/${reviewer.id}/execute`, {
      input: 'Can I get a refund?',
      wait_for_completion: true,
    });
    t.is(direct.body.data.status, 'awaiting_approval', JSON.stringify(direct.body));
    await d.advance('5m');

    const listed = await svc('approvals', '--json');
    assertExit(t, listed, 0);
    const page = listed.json<{
      data: Approval[];
      has_more: boolean;
      total_count: number;
      meta: { has_more: boolean; next_cursor: string | null };
    }>();
    t.is(page.total_count, 3);
    t.false(page.has_more);
    t.deepEqual(page.meta, { has_more: false, next_cursor: null });
    const byRun = new Map(page.data.map((approval) => [approval.workflow_execution_id, approval]));
    const awaited = (run: { step_results: { result: unknown }[] }) =>
      (run.step_results.at(-1)!.result as { agent_execution_id: string }).agent_execution_id;
    for (const run of [first, second]) {
      const approval = byRun.get(run.execution_id)!;
      t.like(approval, {
        execution_id: awaited(run),
        agent_id: reviewer.id,
        agent_name: 'Reviewer',
        workspace_id: ws,
        step_id: 'review',
        created_at: '2026-01-05T09:00:00.000Z',
        waiting_ms: 300_000,
      });
      t.is(approval.proposed?.action, 'review');
    }
    t.like(byRun.get(null), {
      execution_id: direct.body.data.execution_id,
      step_id: null,
      waiting_ms: 300_000,
    });

    // The table carries every id whole, and says on stderr how to decide.
    const human = await svc('approvals');
    assertExit(t, human, 0);
    for (const approval of page.data) {
      t.true(human.stdout.includes(approval.execution_id), human.stdout);
      if (approval.workflow_execution_id)
        t.true(human.stdout.includes(approval.workflow_execution_id), human.stdout);
    }
    t.regex(human.stdout, /^EXECUTION +AGENT +RUN +STEP +PROPOSES +WAITING/);
    t.regex(human.stdout, /5m \(since 2026-01-05T09:00:00\.000Z\)/);
    t.is(human.stderr, 'Decide with: svc approvals approve|reject EXECUTION [--reason TEXT]\n');

    // The run view names the command with the whole execution id.
    const shown = await svc('workflows', 'execution', workflowId, first.execution_id);
    assertExit(t, shown, 0);
    t.true(
      shown.stdout.includes(`decide with: svc approvals approve|reject ${awaited(first)}`),
      shown.stdout,
    );
    t.true(shown.stdout.includes(`awaits a decision on ${awaited(first)}`), shown.stdout);

    // Approve by the execution id alone (no agent id, no --workspace): the run goes on.
    const approved = await d.cli(['approvals', 'approve', awaited(first), '--reason', 'checked']);
    assertExit(t, approved, 0);
    t.is(
      approved.stdout,
      `Approved ${awaited(first)} of agent ${reviewer.id}: completed (checked)\n`,
    );
    await waitForExecution(
      api,
      workflowId,
      first.execution_id,
      (run) => run.status === 'completed',
    );

    const rejected = await d.cli(['approvals', 'reject', awaited(second), '--json']);
    assertExit(t, rejected, 0);
    t.like(rejected.json(), { status: 'cancelled', approval: { decision: 'reject' } });
    const ended = await waitForExecution(
      api,
      workflowId,
      second.execution_id,
      (run) => run.status !== 'awaiting_approval',
    );
    t.not(ended.status, 'completed');

    // The agents' own command still decides one (agent and execution).
    const old = await svc('agents', 'approve', reviewer.id, direct.body.data.execution_id);
    assertExit(t, old, 0);

    const none = await svc('approvals', '--json');
    t.deepEqual(none.json<{ data: unknown[] }>().data, []);
    const empty = await svc('approvals');
    t.is(empty.stderr, '', 'no hint without anything to decide');

    // Deciding again, or an unknown id: a clear refusal, the exit code of its kind.
    const again = await d.cli(['approvals', 'approve', awaited(first)]);
    assertExit(t, again, 1);
    t.regex(again.stderr, /is completed; only executions awaiting approval can be decided/);
    const unknown = await d.cli(['approvals', 'reject', 'exec_nope']);
    assertExit(t, unknown, 1);
    t.regex(
      unknown.stderr,
      /No agent execution exec_nope\. List those waiting for a decision with: svc approvals/,
    );
    await control(d, 'clock.reset', undefined, 'mutation');
  },
);

test.serial(
  'pages with --limit and --starting-after; a bad --limit is a usage error',
  async (t) => {
    const ws = await d.createWorkspace('approvals-pages');
    const svc = (...args: string[]) => d.cli([...args, '--workspace', ws]);
    const api = await apiFor(d, ws);
    const reviewer = await activeAgent(api, { autonomy_level: 'L2' });
    for (const text of ['one', 'two', 'three']) {
      const asked = await api('POST', `/agents/${reviewer.id}/execute`, {
        input: text,
        wait_for_completion: true,
      });
      t.is(asked.body.data.status, 'awaiting_approval');
    }
    const first = (await svc('approvals', '--limit', '2', '--json')).json<{
      data: Approval[];
      has_more: boolean;
      meta: { next_cursor: string };
    }>();
    t.is(first.data.length, 2);
    t.true(first.has_more);
    t.is(first.meta.next_cursor, first.data[1]!.execution_id);
    const rest = (
      await svc('approvals', '--limit', '2', '--starting-after', first.meta.next_cursor, '--json')
    ).json<{ data: Approval[]; has_more: boolean }>();
    t.is(rest.data.length, 1);
    t.false(rest.has_more);
    const human = await svc('approvals', '--limit', '2');
    t.regex(human.stderr, new RegExp(`more: --starting-after ${first.meta.next_cursor}`));

    const bad = await svc('approvals', '--limit', '500');
    assertExit(t, bad, 2);
    t.regex(bad.stderr, /--limit takes a whole number from 1 to 100/);
  },
);
