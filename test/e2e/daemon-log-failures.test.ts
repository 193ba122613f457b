// The daemon's log speaks up on failures (issue 41): a failed workflow step, a failed run, a
// failed agent execution, a failed delivery attempt and a webhook turned failed are `warn`
// lines, and so are `svc state reset` and `svc state import` (the whole sandbox replaced); a
// stream the client closes is a `debug` line, not `info`. Each is provoked for real and read
// back with `svc logs --level warn --json`; a secret used by the failing step never shows.
import test from 'ava';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { SVC_BIN, startDaemon, type TestDaemon } from '../helpers/daemon.js';
import { svcEnv } from '../helpers/env.js';
import { tempDir } from '../helpers/temp-dir.js';
import { activeAgent, apiFor, createWorkflow } from '../helpers/workflows.js';

const SECRET = 'tok_log_secret_0123456789';
let d: TestDaemon;

test.before(async () => {
  // At debug, so that the closed stream's line can be seen at its level.
  d = await startDaemon({ args: ['--log-level', 'debug'] });
});

test.after.always(async () => {
  await d?.stop();
});

interface Line {
  level: string;
  msg: string;
  [field: string]: unknown;
}

/** `svc logs --json` (every line, or those at `level` and above), parsed. */
async function logs(level?: string): Promise<Line[]> {
  const args = ['logs', '-n', '100000', '--json', ...(level ? ['--level', level] : [])];
  const result = await d.cli(args);
  if (result.code !== 0) throw new Error(`svc logs: ${result.stderr}`);
  return result.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Line);
}

/** The warn lines, once `found` holds for them (the log is written in batches, 200 ms at most). */
async function warnLinesUntil(found: (lines: Line[]) => boolean): Promise<Line[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const lines = await logs('warn');
    if (found(lines) || Date.now() > deadline) return lines;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

test.serial(
  'failed steps, runs, agent executions, delivery attempts and webhooks are warn lines',
  async (t) => {
    const ws = await d.createWorkspace('Failures');
    const api = await apiFor(d, ws);
    const svc = (...args: string[]) => d.cli([...args, '--workspace', ws, '--json']);
    t.is((await svc('secrets', 'set', 'PAGER_TOKEN', SECRET)).code, 0);

    // A webhook nobody answers, with one attempt: the attempt fails and the webhook turns failed.
    const hook = await svc(
      'webhooks',
      'create',
      '--url',
      'http://127.0.0.1:9/hooks',
      '--events',
      'agent.created',
      '--max-attempts',
      '1',
    );
    t.is(hook.code, 0, hook.stderr);
    const hookId = hook.json().id as string;
    t.is((await svc('events', 'trigger', 'agent.created')).code, 0);

    // An agent step whose action the agent may not take: the step, the execution and the run fail.
    const { id: agentId } = await activeAgent(api, { capabilities: { issue_refund: false } });
    const refused = await createWorkflow(api, {
      name: 'Refused',
      steps: [
        {
          id: 'pay',
          name: 'Pay',
          type: 'agent_action',
          agent_id: agentId,
          config: { action: 'issue_refund' },
        },
      ],
    });
    // A webhook step that sends the secret to nobody: it fails, and the secret shows nowhere.
    const paging = await createWorkflow(api, {
      name: 'Paging',
      settings: { retry_policy: { max_attempts: 1 } },
      steps: [
        {
          id: 'page',
          name: 'Page',
          type: 'webhook',
          config: {
            url: 'http://127.0.0.1:9/page?token={{secrets.PAGER_TOKEN}}',
            headers: { Authorization: 'Bearer {{secrets.PAGER_TOKEN}}' },
            body: { token: '{{secrets.PAGER_TOKEN}}' },
          },
        },
      ],
    });
    const runs: Record<string, string> = {};
    for (const [name, id] of Object.entries({ refused, paging })) {
      const answer = await api('POST', `/workflows/${id}/execute`, {
        input: {},
        wait_for_completion: true,
      });
      t.is(answer.status, 500, JSON.stringify(answer.body));
      runs[name] = answer.body.error.execution_id as string;
    }

    const want = (lines: Line[]) => ({
      attempt: lines.find(
        (l) => l.msg === 'webhook delivery attempt failed' && l.webhook_id === hookId,
      ),
      webhook: lines.find((l) => l.msg.startsWith('webhook failed') && l.webhook_id === hookId),
      refusedStep: lines.find(
        (l) => l.msg === 'workflow step failed' && l.execution_id === runs.refused,
      ),
      pagingStep: lines.find(
        (l) => l.msg === 'workflow step failed' && l.execution_id === runs.paging,
      ),
      run: lines.find((l) => l.msg === 'workflow run failed' && l.execution_id === runs.refused),
      agent: lines.find((l) => l.msg === 'agent execution failed' && l.agent_id === agentId),
    });
    const lines = await warnLinesUntil((found) => Object.values(want(found)).every(Boolean));
    const seen = want(lines);
    t.like(seen.attempt, {
      level: 'warn',
      workspace_id: ws,
      attempt: 1,
      http_status: null,
      delivery_status: 'failed',
    });
    t.like(seen.webhook, { level: 'warn', workspace_id: ws });
    t.like(seen.refusedStep, { level: 'warn', step_id: 'pay', code: 'guardrail_violation' });
    t.like(seen.pagingStep, { level: 'warn', step_id: 'page', step_type: 'webhook' });
    t.like(seen.run, { level: 'warn', status: 'failed', failed_step: 'pay' });
    t.like(seen.agent, { level: 'warn', status: 'failed', code: 'guardrail_violation' });
    t.true(String(seen.agent?.error).includes("'issue_refund'"), String(seen.agent?.error));
    t.true(lines.every((l) => l.level === 'warn' || l.level === 'error' || l.level === 'fatal'));
    const everything = JSON.stringify(await logs());
    t.false(everything.includes(SECRET), 'the secret is in no log line');
  },
);

test.serial('state reset and state import are warn lines', async (t) => {
  const file = join(tempDir('svc-log-state-'), 'snapshot.db');
  t.is((await d.cli(['state', 'export', file, '--json'])).code, 0);
  t.is((await d.cli(['state', 'reset', '--yes', '--json'])).code, 0);
  t.is((await d.cli(['state', 'import', file, '--json'])).code, 0);
  const lines = await warnLinesUntil((found) =>
    found.some((l) => l.msg.startsWith('state imported')),
  );
  t.like(
    lines.find((l) => l.msg.startsWith('state reset')),
    { level: 'warn', data_dir: d.dataDir },
  );
  const imported = lines.find((l) => l.msg.startsWith('state imported'));
  t.like(imported, { level: 'warn', file });
  t.is(typeof imported?.keys, 'number', 'keys are counted, never listed');
});

test.serial('a stream the client closes is a debug line, not info', async (t) => {
  const tail = spawn(process.execPath, [SVC_BIN, 'events', 'tail', '--json'], {
    env: svcEnv({ ...d.env, NO_COLOR: '1', CI: 'true' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Open once its stream is: the daemon has answered the subscription.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  await d.cli(['events', 'trigger', 'agent.created', '--json']);
  await new Promise((resolve) => tail.stdout.once('data', resolve));
  tail.kill('SIGKILL');
  await new Promise((resolve) => tail.once('close', resolve));
  const deadline = Date.now() + 10_000;
  let closes: Line[] = [];
  while (closes.length === 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    closes = (await logs()).filter((l) => l.msg === 'stream closed prematurely');
  }
  t.true(closes.length > 0, 'the closed stream is logged at debug');
  t.true(
    closes.every((l) => l.level === 'debug'),
    JSON.stringify(closes),
  );
});
