// Issue 41, the CLI's side: output a script can use (stdout carries only the data, summaries and
// hints go to stderr, a symbol only on a terminal; every --json list in one envelope), errors and
// hints that name svc commands and the workspace the CLI used, durations people read, and the
// commands a first hour looks for (svc clock, svc status, svc logs).
import test from 'ava';
import { spawn } from 'node:child_process';
import { assertExit, ROOT, SVC_BIN, type CliResult } from '../helpers/daemon.js';
import { control } from '../helpers/api.js';
import { svcEnv } from '../helpers/env.js';
import { startReceiver } from '../helpers/receiver.js';
import { sharedDaemon } from '../helpers/setup.js';
import { activeAgent, apiFor, createWorkflow, type Api } from '../helpers/workflows.js';

const d = sharedDaemon(test);

/** `svc <args> --workspace ws`. */
function svc(ws: string, ...args: string[]): Promise<CliResult> {
  return d.cli([...args, '--workspace', ws]);
}

async function workspace(name: string): Promise<{ ws: string; api: Api }> {
  const ws = await d.createWorkspace(name);
  return { ws, api: await apiFor(d, ws) };
}

/** A workflow of one webhook step that calls `url`, with no retry. */
function oneCall(url: string): Record<string, unknown> {
  return {
    name: 'One call',
    settings: { retry_policy: { max_attempts: 1 } },
    steps: [
      {
        id: 'page',
        name: 'Page someone',
        type: 'webhook',
        config: { url, method: 'POST', body: { hello: 'world' } },
      },
    ],
  };
}

/** `svc <args>` in a pseudo-terminal (`script`); everything the terminal showed. */
function inTty(args: string[]): Promise<{ code: number | null; screen: string }> {
  const command = [process.execPath, SVC_BIN, ...args].map((part) => `'${part}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      cwd: ROOT,
      env: svcEnv({ ...d.env, TERM: 'xterm', NO_COLOR: '1', CI: 'true' }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    child.stdout.on('data', (chunk) => (screen += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, screen }));
    child.stdin.end();
  });
}

test('run --wait: stdout is the result alone (jq reads it), the summary is on stderr, no symbol off a terminal', async (t) => {
  const { ws, api } = await workspace('out-run');
  const receiver = await startReceiver(t);
  const workflowId = await createWorkflow(api, oneCall(receiver.url));

  const run = await svc(ws, 'workflows', 'run', workflowId, '--wait');
  assertExit(t, run, 0);
  t.regex(run.stderr, /^Run wex_\w+ completed in \d+(\.\d+)?m?s$/m);
  const executionId = /Run (wex_\w+) completed/.exec(run.stderr)![1]!;
  const execution = await api('GET', `/workflows/${workflowId}/executions/${executionId}`);
  t.deepEqual(JSON.parse(run.stdout), execution.body.data.result, 'stdout is the result alone');
  t.truthy(execution.body.data.result);
  t.false(run.stderr.includes('✔'), run.stderr);
  t.false(run.stdout.includes('Run wex_'), run.stdout);

  const tty = await inTty(['workflows', 'run', workflowId, '--wait', '--workspace', ws]);
  t.is(tty.code, 0, tty.screen);
  t.regex(tty.screen, /✔ Run wex_\w+ completed in/, 'on a terminal the summary has its symbol');
});

test('a failed run says what failed in words on stderr, not a raw JSON details line', async (t) => {
  const { ws, api } = await workspace('out-fail');
  const receiver = await startReceiver(t);
  receiver.respondWith(500);
  const workflowId = await createWorkflow(api, oneCall(receiver.url));

  const run = await svc(ws, 'workflows', 'run', workflowId, '--wait');
  assertExit(t, run, 1);
  t.is(run.stdout, '', 'no result, so nothing on stdout');
  t.regex(run.stderr, /^Run wex_\w+ failed at step page \(Page someone\): \w+: .+$/m);
  t.regex(run.stderr, /See every step with: svc workflows execution wfl_\w+ wex_\w+/);
  t.false(run.stderr.includes('{"step_id"'), run.stderr);
  t.false(run.stderr.includes('"agent_id"'), run.stderr);
});

test('every --json list is the envelope {data, has_more, total_count, meta}', async (t) => {
  const { ws, api } = await workspace('out-lists');
  const agent = await activeAgent(api);
  // One of each listed thing, over the control channel as `svc secrets set`, `svc agents stub
  // add` and `svc faults add` make them (those commands are tested in their own files).
  await control(d, 'secrets.set', { name: 'TOKEN', value: 'value-1', workspace_id: ws });
  await control(d, 'agents.stubs.add', { agent_id: agent.id, match: 'x', delay_ms: 1000 });
  await control(d, 'faults.add', {
    workspace_id: ws,
    agent_id: agent.id,
    fail: 'external_api_error',
  });
  const lists: [string[], number | undefined][] = [
    [['keys', 'list'], undefined],
    [['workspaces', 'list'], undefined],
    [['oauth', 'apps', 'list'], undefined],
    [['oauth', 'grants', 'list'], undefined],
    [['secrets', 'list'], 1],
    [['agents', 'stub', 'list', agent.id], 1],
    [['faults', 'list'], 1],
    [['workflows', 'templates'], undefined],
    [['agents', 'list'], 1],
    [['workflows', 'list'], 0],
    [['webhooks', 'list'], 0],
    [['events', 'list'], undefined],
  ];
  for (const [args, count] of lists) {
    const listed = await svc(ws, ...args, '--json');
    assertExit(t, listed, 0);
    const body = listed.json();
    const what = `svc ${args.join(' ')} --json`;
    t.true(Array.isArray(body.data), what);
    t.is(typeof body.has_more, 'boolean', what);
    t.is(body.total_count, body.has_more ? body.total_count : body.data.length, what);
    if (count !== undefined) t.is(body.data.length, count, what);
    // Issue 55: meta too, the same keys in every list (the control channel's lists, answered
    // whole, have no REST request: request_id and timestamp null).
    t.deepEqual(
      Object.keys(body.meta).sort(),
      ['has_more', 'next_cursor', 'request_id', 'timestamp'],
      what,
    );
    t.is(body.meta.has_more, body.has_more, what);
  }
});

test('hints name svc commands; the REST API keeps its own wording', async (t) => {
  const { ws, api } = await workspace('out-hints');
  const workflowId = await createWorkflow(api, {
    ...oneCall('http://127.0.0.1:9/'),
    status: 'paused',
  });

  const paused = await svc(ws, 'workflows', 'run', workflowId);
  assertExit(t, paused, 1);
  t.regex(paused.stderr, new RegExp(`Activate it first: svc workflows activate ${workflowId}`));
  t.false(paused.stderr.includes('PATCH'), paused.stderr);
  const rest = await api('POST', `/workflows/${workflowId}/execute`, { input: {} });
  t.regex(rest.body.error.message, /PATCH \/v1\/workflows\/\w+ \{"status": "active"\}/);

  // Paused, not training: a training agent may turn active (2 s) before the CLI calls.
  const agent = await activeAgent(api);
  const pausedAgent = await api('PATCH', `/agents/${agent.id}`, { status: 'paused' });
  t.is(pausedAgent.status, 200, JSON.stringify(pausedAgent.body));
  const notActive = await svc(ws, 'agents', 'execute', agent.id, '--input', 'hi');
  assertExit(t, notActive, 1);
  t.regex(
    notActive.stderr,
    new RegExp(`Activate it with: svc agents update ${agent.id} --status active`),
  );
  t.false(notActive.stderr.includes('/v1/'), notActive.stderr);

  const json = await svc(ws, 'workflows', 'run', workflowId, '--json');
  assertExit(t, json, 1);
  t.is(json.json().error.code, 'workflow_not_active');
  t.regex(json.json().error.message, /svc workflows activate/);
});

test('not found says which workspace the CLI used and how to choose another', async (t) => {
  const mine = await workspace('out-mine');
  const other = await workspace('out-other');
  const workflowId = await createWorkflow(other.api, oneCall('http://127.0.0.1:9/'));

  const elsewhere = await svc(mine.ws, 'workflows', 'get', workflowId);
  assertExit(t, elsewhere, 1);
  t.is(
    elsewhere.stderr.trim(),
    `Error: No workflow ${workflowId} in workspace ${mine.ws} (from --workspace; choose another with --workspace ID or SVC_WORKSPACE). List them with: svc workflows list.`,
  );
  const byEnv = await d.cli(['agents', 'get', 'agt_missing'], { env: { SVC_WORKSPACE: mine.ws } });
  assertExit(t, byEnv, 1);
  t.regex(
    byEnv.stderr,
    new RegExp(`No agent agt_missing in workspace ${mine.ws} \\(from SVC_WORKSPACE;`),
  );
  t.regex(byEnv.stderr, /List them with: svc agents list\./);
  const byDefault = await d.cli(['webhooks', 'get', 'hook_missing']);
  assertExit(t, byDefault, 1);
  const { workspaceId } = await d.operator();
  t.regex(
    byDefault.stderr,
    new RegExp(
      `in workspace ${workspaceId} \\(the operator's default workspace; choose another with --workspace ID or SVC_WORKSPACE\\)`,
    ),
  );
  const rest = await other.api('GET', '/workflows/wfl_missing');
  t.is(
    rest.body.error.message,
    'No workflow wfl_missing in this workspace. List them with GET /v1/workflows.',
  );
});

test('an execution awaiting approval prints the command that decides it', async (t) => {
  const { ws, api } = await workspace('out-approval');
  const agent = await activeAgent(api, { autonomy_level: 'L2' });
  const waiting = await svc(
    ws,
    'agents',
    'execute',
    agent.id,
    '--input',
    'Where is my order?',
    '--wait',
  );
  assertExit(t, waiting, 0);
  const id = /exec_\w+/.exec(waiting.stdout)?.[0];
  t.truthy(id, waiting.stdout);
  t.regex(waiting.stdout, /awaiting_approval/);
  t.true(
    waiting.stderr.includes(
      `Decide with: svc approvals approve|reject ${id} [--reason TEXT] (or svc agents approve|reject ${agent.id} ${id})`,
    ),
    waiting.stderr,
  );
  const json = await svc(
    ws,
    'agents',
    'execute',
    agent.id,
    '--input',
    'Where is it?',
    '--wait',
    '--json',
  );
  assertExit(t, json, 0);
  t.is(json.json().status, 'awaiting_approval', 'stdout stays one JSON document');
  t.regex(json.stderr, /Decide with: svc approvals approve\|reject exec_\w+/);
});

// Serial: it moves the clock of the daemon the file's tests share.
test.serial('svc clock alone shows the clock; its offset reads +1h, not 3600000 ms', async (t) => {
  const advanced = await d.cli(['clock', 'advance', '1h']);
  assertExit(t, advanced, 0);
  t.regex(advanced.stdout, /, offset \+1h\)$/m);
  const status = await d.cli(['daemon', 'status']);
  t.regex(status.stdout, /^clock +\S+ \(offset \+1h\)$/m);
  assertExit(t, await d.cli(['clock', 'reset']), 0);

  const shown = await d.cli(['clock']);
  assertExit(t, shown, 0);
  t.regex(shown.stdout, /^\d{4}-\d{2}-\d{2}T/);
  const json = await d.cli(['clock', '--json']);
  assertExit(t, json, 0);
  t.is(typeof json.json().offset_ms, 'number');
  const help = await d.cli(['clock', '--help']);
  assertExit(t, help, 0);
  t.regex(help.stdout, /advance/);
});

// Serial: svc logs reads the log file, which the file's other tests would grow meanwhile.
test.serial('svc logs is svc daemon logs; --level warn keeps warnings and worse', async (t) => {
  // A request that fails, for the log (over REST: what `svc agents get agt_not_there` sends).
  const { key, workspaceId } = await d.operator();
  const missing = await d.callJson('GET', '/v1/agents/agt_not_there', undefined, {
    key,
    tenant: workspaceId,
  });
  t.is(missing.status, 404, missing.text);
  const lines = (out: string) =>
    out
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { level: string; msg: string });
  const all = await d.cli(['logs', '-n', '500', '--json']);
  assertExit(t, all, 0);
  t.true(
    lines(all.stdout).some((line) => line.level === 'info'),
    'the whole log has info lines',
  );
  const warn = await d.cli(['logs', '-n', '500', '--level', 'warn', '--json']);
  assertExit(t, warn, 0);
  t.deepEqual(
    lines(warn.stdout),
    lines(all.stdout).filter((line) => ['warn', 'error', 'fatal'].includes(line.level)),
  );
  const same = await d.cli(['daemon', 'logs', '-n', '500', '--level', 'info', '--json']);
  assertExit(t, same, 0);
  t.deepEqual(lines(same.stdout), lines(all.stdout), 'info and above is the whole log here');
  const bad = await d.cli(['logs', '--level', 'loud']);
  assertExit(t, bad, 2);
  t.regex(bad.stderr, /trace, debug, info, warn, error, fatal/);
});

test('agents record --stop says which cassette was recorded and where', async (t) => {
  // Recording starts over the control channel as `svc agents record --cassette` starts it
  // (tested in agent-brain-cassette); the subject here is what --stop prints.
  await control(d, 'agents.record', { cassette: 'first-hour.json' });
  const stopped = await d.cli(['agents', 'record', '--stop']);
  assertExit(t, stopped, 0);
  t.regex(
    stopped.stdout,
    /^Stopped recording\. .* cassette first-hour\.json \(in the daemon's cassette folder: SVC_CASSETTE_DIR, else .*\/cassettes\)/,
  );
  const again = await d.cli(['agents', 'record', '--stop', '--json']);
  t.like(again.json(), { recording: null, stopped: null });
  t.regex(
    (await d.cli(['agents', 'record'])).stdout,
    /Not recording\. Start with: svc agents record --cassette/,
  );
});
