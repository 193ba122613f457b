// A run's size is bounded, not each step's (issue 51, row 4). A webhook body handed by a parallel
// step to many agent steps (each input {{trigger.payload.text}}) is stored once, whatever the
// number of steps that read it: the store grows by less than 3x the body, measured in the pages
// the store uses. Each step still sees, and each execution still shows, the whole text. And the
// characters interpolation produces across a run are bounded (10,000,000): the step that would
// cross the bound fails with invalid_expression, its message naming it and saying what to do,
// and the run fails at it.
import test from 'ava';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { startDaemon, type TestDaemon } from '../helpers/daemon.js';
import { startReceiver } from '../helpers/receiver.js';
import {
  activeAgent,
  afterRunEvents,
  apiFor,
  createWorkflow,
  getExecution,
  TERMINAL,
  type Api,
} from '../helpers/workflows.js';

const TEXT_CHARS = 900_000;
const RUN_BUDGET = 10_000_000;

let d: TestDaemon;
let api: Api;
let agentId: string;
let workspaceId: string;

test.before(async () => {
  d = await startDaemon();
  workspaceId = (await d.operator()).workspaceId;
  api = await apiFor(d, workspaceId);
  agentId = (await activeAgent(api)).id;
});

test.after.always(async () => {
  await d?.stop();
});

/** An active workflow: a webhook trigger, a parallel step of `branches` agent steps. */
async function fanOut(path: string, branches: number): Promise<string> {
  const ids = Array.from({ length: branches }, (_, i) => `b${i}`);
  return createWorkflow(api, {
    name: `fan-out ${path}`,
    status: 'active',
    trigger: { type: 'webhook', config: { path } },
    steps: [
      { id: 'fan', name: 'Fan out', type: 'parallel', config: { steps: ids } },
      ...ids.map((id) => ({
        id,
        name: id,
        type: 'agent_action',
        agent_id: agentId,
        config: { action: 'summarize', input: '{{trigger.payload.text}}' },
      })),
    ],
  });
}

/** Bytes of the pages the store uses (what the daemon has committed). */
function storeBytes(): number {
  const db = new Database(join(d.dataDir, 'svc.db'), { readonly: true, fileMustExist: true });
  try {
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const pages = db.pragma('page_count', { simple: true }) as number;
    const free = db.pragma('freelist_count', { simple: true }) as number;
    return (pages - free) * pageSize;
  } finally {
    db.close();
  }
}

/** Posts a hook body (unauthenticated, as anyone may); answers the run once it has ended. */
async function hook(path: string, workflowId: string, body: string): Promise<any> {
  const answer = await d.request(`/v1/hooks/${workspaceId}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  if (answer.status !== 202) throw new Error(`hook: ${answer.status} ${answer.text}`);
  const executionId = JSON.parse(answer.text).data.execution_id as string;
  return afterRunEvents(
    d,
    () => getExecution(api, workflowId, executionId),
    (run) => TERMINAL.includes(run.status),
  );
}

const textOf = (n: number) => `hook ${n} `.padEnd(TEXT_CHARS, 'x');

test.serial(
  'a hook body read by ten agent steps is stored once; each step sees it whole',
  async (t) => {
    const workflowId = await fanOut('ten', 10);
    const text = textOf(1);
    const body = JSON.stringify({ text });
    const before = storeBytes();
    const run = await hook('ten', workflowId, body);
    const growth = (storeBytes() - before) / body.length;

    t.is(run.status, 'completed', JSON.stringify(run.error));
    // The run's input and the one shared text: twice the body, and a few pages of rows.
    t.true(growth < 3, `the store grew by ${growth.toFixed(2)}x the body`);
    t.deepEqual(run.input, { text });
    const agentSteps = run.step_results.filter((step: any) => step.step_id !== 'fan');
    t.is(agentSteps.length, 10);
    for (const step of agentSteps) {
      t.is(step.status, 'completed');
      const execution = await api(
        'GET',
        `/agents/${agentId}/executions/${step.result.agent_execution_id}`,
      );
      t.is(execution.status, 200);
      t.is(execution.body.data.input.length, TEXT_CHARS);
      t.true(execution.body.data.input === text, `${step.step_id} sees the whole text`);
    }
  },
);

test.serial(
  'a run past 10,000,000 interpolated characters fails at the step that crosses it',
  async (t) => {
    const workflowId = await fanOut('fifty', 50);
    const body = JSON.stringify({ text: textOf(2) });
    const before = storeBytes();
    const run = await hook('fifty', workflowId, body);
    const growth = (storeBytes() - before) / body.length;

    t.is(run.status, 'failed');
    t.is(run.error.code, 'invalid_expression');
    const crossing = run.failed_step as string;
    t.regex(crossing, /^b\d+$/);
    t.is(run.error.details.step_id, crossing);
    t.true(
      run.error.message.startsWith(
        `Step '${crossing}' would take its run's interpolated input past 10,000,000 characters`,
      ),
      run.error.message,
    );
    t.regex(run.error.message, /to one step and pass the others its result/);
    // Every step before it read the whole text; the one that crossed read nothing.
    const completed = run.step_results.filter(
      (step: any) => step.step_id !== 'fan' && step.status === 'completed',
    );
    t.is(completed.length, Math.floor(RUN_BUDGET / TEXT_CHARS));
    const failed = run.step_results.find((step: any) => step.step_id === crossing);
    t.like(failed, { status: 'failed', error: { code: 'invalid_expression' } });
    t.true(growth < 3, `the store grew by ${growth.toFixed(2)}x the body`);
  },
);

test.serial(
  'steps that run at the same time after a commit count each other: twelve webhook calls, eleven sent',
  async (t) => {
    // Webhook steps run after the commit that reached them, all twelve at once, each storing its
    // attempt before it interpolates its body: each must see what the others took meanwhile.
    const receiver = await startReceiver(t);
    const ids = Array.from({ length: 12 }, (_, i) => `w${i}`);
    const workflowId = await createWorkflow(api, {
      name: 'fan-out calls',
      status: 'active',
      trigger: { type: 'webhook', config: { path: 'calls' } },
      steps: [
        { id: 'fan', name: 'Fan out', type: 'parallel', config: { steps: ids } },
        ...ids.map((id) => ({
          id,
          name: id,
          type: 'webhook',
          config: { url: receiver.url, method: 'POST', body: '{{trigger.payload.text}}' },
        })),
      ],
    });
    const answer = await d.request(`/v1/hooks/${workspaceId}/calls`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: textOf(3) }),
    });
    t.is(answer.status, 202, answer.text);
    const executionId = JSON.parse(answer.text).data.execution_id as string;
    const run = await afterRunEvents(
      d,
      () => getExecution(api, workflowId, executionId),
      (view) => TERMINAL.includes(view.status),
    );
    t.is(run.status, 'failed');
    t.is(run.error.code, 'invalid_expression');
    // It counted the eleven that had interpolated before it, none of them recorded yet.
    t.true(
      run.error.message.startsWith(
        `Step '${run.failed_step}' would take its run's interpolated input past 10,000,000 characters (the run's steps had produced 9,900,000, and this step's expressions 900,000 more)`,
      ),
      run.error.message.slice(0, 300),
    );
    const failed = run.step_results.find((step: any) => step.step_id === run.failed_step);
    t.like(failed, { status: 'failed', error: { code: 'invalid_expression' } });
    // The eleven calls each carried the whole text; the twelfth was never sent.
    const sent = await receiver.waitForCount(11, 60_000);
    t.is(sent.length, 11);
    for (const request of sent) t.true(request.json() === textOf(3));
  },
);
