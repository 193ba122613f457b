// Following any run from the CLI (issue 41, "Runs you cannot follow"): `workflows rerun --wait`
// behaves as `run --wait` (the new id at once, a wait and an approval followed live, no request
// timeout), `workflows watch` follows a run started elsewhere (here by its hook), and a run id
// alone is enough wherever a command needs a run (GET /v1/executions/{id} finds its workflow).
import { HANG_TIMEOUT_MS } from '../helpers/waiting.js';
import test from 'ava';
import { assertExit, type CliResult } from '../helpers/daemon.js';
import { sharedDaemon } from '../helpers/setup.js';
import { startReceiver } from '../helpers/receiver.js';
import { CliStream } from '../helpers/cli-stream.js';
import {
  activeAgent,
  allEvents,
  apiFor,
  cancelRun,
  createWorkflow,
  getExecution,
  hookPoster,
  waitForExecution,
  waitStep,
  type Api,
} from '../helpers/workflows.js';

const d = sharedDaemon(test);

function svc(ws: string, ...args: string[]): Promise<CliResult> {
  return d.cli([...args, '--workspace', ws]);
}

/** A CLI command that runs on while the test acts (no terminal: plain lines on stderr). */
interface Following {
  stream: CliStream;
  /** Everything on stdout so far, as printed (a pretty-printed JSON document spans lines). */
  stdout(): string;
}

function follow(t: { teardown(fn: () => void): void }, ws: string, ...args: string[]): Following {
  const stream = new CliStream([...args, '--workspace', ws], d.env);
  t.teardown(() => stream.kill());
  let stdout = '';
  stream.child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  return { stream, stdout: () => stdout };
}

/** Resolves with the first match of `pattern` on the stream's stderr (fails after 15 s). */
async function stderrMatch({ stream }: Following, pattern: RegExp): Promise<RegExpExecArray> {
  const seen = await stream.waitFor(() => pattern.test(stream.stderr), HANG_TIMEOUT_MS);
  if (!seen) throw new Error(`stderr never matched ${pattern}:\n${stream.stderr}`);
  return pattern.exec(stream.stderr)!;
}

async function exitOf(following: Following): Promise<CliResult> {
  const { code } = await following.stream.exited;
  const stdout = following.stdout();
  return {
    code: code ?? -1,
    stdout,
    stderr: following.stream.stderr,
    json: () => JSON.parse(stdout),
  };
}

function running(following: Following): boolean {
  return following.stream.child.exitCode === null && following.stream.child.signalCode === null;
}

async function setup(name: string): Promise<{ ws: string; api: Api }> {
  const ws = await d.createWorkspace(name);
  return { ws, api: await apiFor(d, ws) };
}

test.serial(
  'rerun --from-step --wait prints the new run id at once and follows it through a 15 min wait',
  async (t) => {
    const { ws, api } = await setup('follow-rerun');
    const receiver = await startReceiver(t);
    const workflowId = await createWorkflow(api, {
      name: 'Page and wait',
      settings: { retry_policy: { max_attempts: 1 } },
      steps: [
        {
          id: 'page',
          name: 'Page',
          type: 'webhook',
          config: { url: receiver.url, method: 'POST', body: { who: 'on-call' } },
          next_step_id: 'wait_ack',
        },
        waitStep('wait_ack', 900, 'close'),
        { id: 'close', name: 'Close', type: 'wait', config: { duration_seconds: 0 } },
      ],
    });
    receiver.respondWith(500);
    const first = await api('POST', `/workflows/${workflowId}/execute`, {
      input: { incident: 'db down' },
      wait_for_completion: true,
    });
    t.is(first.status, 500, JSON.stringify(first.body));
    const original = first.body.error.execution_id as string;
    receiver.respondWith(200);

    const startedAt = Date.now();
    const rerun = follow(t, ws, 'workflows', 'rerun', original, '--from-step', 'page', '--wait');
    const [, newId] = await stderrMatch(
      rerun,
      new RegExp(`^run (wex_\\w+) is a re-run of ${original} from step page$`, 'm'),
    );
    t.log(`new run id on stderr after ${Date.now() - startedAt} ms`);
    t.not(newId, original);
    await stderrMatch(rerun, /^step wait_ack \(wait\) waiting/m);
    t.true(running(rerun), 'still following the run in its wait');

    await d.advance('15m');
    const result = await exitOf(rerun);
    assertExit(t, result, 0);
    const execution = await getExecution(api, workflowId, newId!);
    t.like(execution, { status: 'completed', rerun_of: original, from_step_id: 'page' });
    t.deepEqual(JSON.parse(result.stdout), execution.result, 'stdout is the result alone');
    t.regex(result.stderr, new RegExp(`^Run ${newId} completed in `, 'm'));
    t.regex(result.stderr, /^step page \(webhook\) completed in /m);
    t.is(receiver.requests.length, 2, 'the original call and the re-run call');
    // One re-run, not one per request retry.
    t.deepEqual((await getExecution(api, workflowId, original)).reruns, [newId]);
  },
);

test('rerun --wait holds at an approval with the command that decides it, then ends', async (t) => {
  const { ws, api } = await setup('follow-rerun-approval');
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
  const started = await api('POST', `/workflows/${workflowId}/execute`, {
    input: { text: 'refund 40 EUR' },
  });
  const original = started.body.data.execution_id as string;
  await waitForExecution(api, workflowId, original, (e) => e.status === 'awaiting_approval');
  // Cancelled over REST: `svc workflows cancel RUN` is tested below ('watch --json ...').
  t.is((await cancelRun(api, workflowId, original)).status, 'cancelled');

  const rerun = follow(t, ws, 'workflows', 'rerun', workflowId, original, '--wait', '--json');
  const [, newId] = await stderrMatch(rerun, /^run (wex_\w+) is a re-run of /m);
  const [, agentExecution] = await stderrMatch(
    rerun,
    /decide with: svc approvals approve\|reject (\w+)\)/,
  );
  const pause = (await allEvents(api, 'agent.execution.awaiting_approval')).at(-1);
  t.is(agentExecution, pause.data.execution_id);
  // The old CLI gave up here after about 1 s ("ended awaiting_approval", exit 1).
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  t.true(running(rerun), 'still waiting for the decision');

  // Approved over REST (`svc agents approve` and `svc approvals approve` are tested in
  // agents-cli and approvals-cli).
  const approved = await api(
    'POST',
    `/agents/${reviewer.id}/executions/${agentExecution!}/approve`,
    { decision: 'approve' },
  );
  t.is(approved.status, 200, JSON.stringify(approved.body));
  const result = await exitOf(rerun);
  assertExit(t, result, 0);
  t.like(result.json(), { execution_id: newId, status: 'completed', rerun_of: original });
});

test('watch follows a run its hook started, by the run id alone', async (t) => {
  const { ws, api } = await setup('follow-watch');
  const workflowId = await createWorkflow(api, {
    name: 'Hooked',
    status: 'active',
    trigger: { type: 'webhook', config: { path: 'orders-in' } },
    steps: [
      waitStep('settle', 60, 'done'),
      { id: 'done', name: 'Done', type: 'wait', config: { duration_seconds: 0 } },
    ],
  });
  const posted = await hookPoster(d, ws, 'orders-in', '{"order": "A-7"}')({});
  t.is(posted.status, 202);
  const runId = ((await posted.json()) as { data: { execution_id: string } }).data.execution_id;

  const watch = follow(t, ws, 'workflows', 'watch', runId);
  await stderrMatch(watch, new RegExp(`^run ${runId} of ${workflowId} `, 'm'));
  await stderrMatch(watch, /^step settle \(wait\) waiting/m);
  await d.advance('1m');
  const result = await exitOf(watch);
  assertExit(t, result, 0);
  t.regex(result.stderr, new RegExp(`^Run ${runId} completed in `, 'm'));
  const execution = await getExecution(api, workflowId, runId);
  t.deepEqual(JSON.parse(result.stdout), execution.result);

  // Watching a run that has ended shows how it ended, at once.
  const again = await svc(ws, 'workflows', 'watch', runId, '--json');
  assertExit(t, again, 0);
  t.like(again.json(), { execution_id: runId, status: 'completed' });
});

test('watch ends with exit 1 when the run is cancelled by its id alone', async (t) => {
  const { ws, api } = await setup('follow-cancel');
  const workflowId = await createWorkflow(api, {
    name: 'Long wait',
    steps: [waitStep('hold', 3600)],
    settings: { timeout_seconds: 7200 }, // longer than the wait (a wait as long is refused)
  });
  const started = await api('POST', `/workflows/${workflowId}/execute`, { input: {} });
  const runId = started.body.data.execution_id as string;
  const watch = follow(t, ws, 'workflows', 'watch', runId);
  await stderrMatch(watch, /^step hold \(wait\) waiting/m);

  const cancelled = await svc(ws, 'workflows', 'cancel', runId, '--json');
  assertExit(t, cancelled, 0);
  t.like(cancelled.json(), { execution_id: runId, status: 'cancelled' });
  const result = await exitOf(watch);
  assertExit(t, result, 1);
  t.regex(result.stderr, new RegExp(`^Run ${runId} was cancelled at step hold`, 'm'));
});

test('a run id alone is enough for execution; the API finds a run by its id', async (t) => {
  const { ws, api } = await setup('follow-by-id');
  const workflowId = await createWorkflow(api, {
    name: 'Quick',
    steps: [{ id: 'only', name: 'Only', type: 'wait', config: { duration_seconds: 0 } }],
  });
  const run = await api('POST', `/workflows/${workflowId}/execute`, {
    input: { n: 1 },
    wait_for_completion: true,
  });
  const runId = run.body.data.execution_id as string;
  const viaWorkflow = await getExecution(api, workflowId, runId);

  const byId = await api('GET', `/executions/${runId}`);
  t.is(byId.status, 200);
  t.deepEqual(byId.body.data, viaWorkflow, 'the same view as under its workflow');

  const alone = await svc(ws, 'workflows', 'execution', runId, '--json');
  assertExit(t, alone, 0);
  t.deepEqual(alone.json(), viaWorkflow);
  const both = await svc(ws, 'workflows', 'execution', workflowId, runId, '--json');
  assertExit(t, both, 0);
  t.deepEqual(both.json(), viaWorkflow);
  const human = await svc(ws, 'workflows', 'execution', runId);
  assertExit(t, human, 0);
  t.regex(human.stdout, new RegExp(`^${runId} completed \\(workflow ${workflowId}\\)`));

  const workflowOnly = await svc(ws, 'workflows', 'execution', workflowId);
  assertExit(t, workflowOnly, 2);
  t.regex(workflowOnly.stderr, /Missing the run id: svc workflows execution wex_\.\.\./);
  t.regex(workflowOnly.stderr, new RegExp(`svc workflows executions ${workflowId}`));

  // Another workspace does not see the run; the CLI says which workspace it looked in.
  const other = await d.createWorkspace('follow-by-id-other');
  const elsewhere = await svc(other, 'workflows', 'execution', runId);
  assertExit(t, elsewhere, 1);
  t.regex(
    elsewhere.stderr,
    new RegExp(`No execution ${runId} in workspace ${other} \\(from --workspace; choose another`),
  );
  const otherApi = await apiFor(d, other);
  const hidden = await otherApi('GET', `/executions/${runId}`);
  t.is(hidden.status, 404);
  t.is(hidden.body.error.code, 'execution_not_found');
});
