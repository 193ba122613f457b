// `svc agents ...` against a real daemon (decisions §4, §10 "Stubs"): every subcommand with
// --json prints one JSON document on stdout; exit 0 on success, 1 when the operation fails
// (with {error: {code, ...}} on stdout), 2 on usage errors. Each test works in its own
// workspace (--workspace) so that concurrent tests never see each other's agents.
import test, { type ExecutionContext } from 'ava';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgent as createAgentOverApi } from '../helpers/agents.js';
import { apiCaller, control } from '../helpers/api.js';
import { startDaemon, type CliResult, type TestDaemon } from '../helpers/daemon.js';
import { buildDocx, buildPdf } from '../helpers/documents.js';
import type { AgentView as Agent } from '../../shared/schemas/agents.js';

let d: TestDaemon;
let files: string;

test.before(async () => {
  d = await startDaemon({ env: { SVC_AGENT_TRAINING_SECONDS: '600' } });
  files = mkdtempSync(join(tmpdir(), 'svc-agents-cli-'));
});

test.after.always(async () => {
  await d?.stop();
  if (files) rmSync(files, { recursive: true, force: true });
});

/** A fresh workspace over the control channel (what `svc workspaces create` does, minus a spawn). */
function workspace(name: string): Promise<string> {
  return d.createWorkspace(name);
}

/** `svc <args> --workspace ws --json` */
function svc(ws: string, ...args: string[]): Promise<CliResult> {
  return d.cli([...args, '--workspace', ws, '--json']);
}

/** `svc agents execute AGENT --input INPUT ...more --workspace ws --json` */
function execute(ws: string, agentId: string, input: string, ...more: string[]) {
  return svc(ws, 'agents', 'execute', agentId, '--input', input, ...more);
}

function ok<T = any>(t: ExecutionContext, result: CliResult): T {
  t.is(result.code, 0, `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
  return result.json<T>();
}

/** Exit 1 with {error: {code}} as the one JSON document on stdout. */
function failed(t: ExecutionContext, result: CliResult, code: string): Record<string, any> {
  t.is(result.code, 1, `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
  const body = result.json<{ error: Record<string, any> }>();
  t.is(body.error.code, code, result.stdout);
  return body.error;
}

function usage(t: ExecutionContext, result: CliResult): void {
  t.is(result.code, 2, `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
}

/**
 * An agent in `ws` over the REST API, as `createAgent` makes it (type custom, retail-v1) at this
 * autonomy level, deployed unless `deploy` is false: setup for the tests whose subject is another
 * command (`svc agents create` and `deploy` are the first test's, which keeps them on the CLI).
 */
async function agentOverApi(ws: string, autonomy: string, deploy = true): Promise<{ id: string }> {
  const fields = { name: 'CLI Agent', type: 'custom', autonomy_level: autonomy };
  return { id: await createAgentOverApi(await rest(ws), fields, deploy) };
}

/** REST with the operator key in `ws`: for setup and for state read back after the command. */
async function rest(ws: string): Promise<ReturnType<typeof apiCaller>> {
  const { key } = await d.operator();
  return apiCaller(() => ({ daemon: d, key, tenant: ws }));
}

/** GET `path` in `ws` over REST, answering the body (a list's total_count, data ...). */
async function restGet(ws: string, path: string): Promise<any> {
  const answer = await (await rest(ws))('GET', path);
  if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status} ${answer.text}`);
  return answer.body;
}

/**
 * `POST /v1/agents/ID/execute` with wait_for_completion, as `svc agents execute --wait` sends it
 * (the command itself is tested in 'execute --wait, execution, approve and reject'): answers
 * the HTTP status and the execution.
 */
async function executeOverApi(ws: string, agentId: string, input: string) {
  const answer = await (
    await rest(ws)
  )('POST', `/v1/agents/${agentId}/execute`, { input, wait_for_completion: true });
  return { status: answer.status, execution: answer.body?.data, text: answer.text };
}

test('create, get, list, update, deploy and delete with --json', async (t) => {
  const ws = await workspace('CLI CRUD');
  const agent = ok<Agent>(
    t,
    await svc(
      ws,
      'agents',
      'create',
      '--name',
      'Support',
      '--ontology',
      'retail-v1',
      '--type',
      'customer-service',
      '--autonomy',
      'L3',
      '--guardrails',
      '{"require_approval_for":["issue_refund"]}',
      '--personality',
      '{"tone":"friendly"}',
      '--capabilities',
      '{"issue_refund":true}',
    ),
  );
  t.regex(agent.id, /^agt_/);
  t.like(agent, {
    name: 'Support',
    type: 'customer-service',
    autonomy_level: 'L3',
    status: 'training',
    guardrails: { require_approval_for: ['issue_refund'] },
  });

  t.deepEqual(ok(t, await svc(ws, 'agents', 'get', agent.id)), agent);

  const list = ok(t, await svc(ws, 'agents', 'list'));
  t.deepEqual(
    list.data.map((a: Agent) => a.id),
    [agent.id],
  );
  t.is(list.total_count, 1);
  t.false(list.has_more);
  t.is(list.meta.next_cursor, null);
  t.deepEqual(ok(t, await svc(ws, 'agents', 'list', '--status', 'active')).data, []);
  t.is(ok(t, await svc(ws, 'agents', 'list', '--type', 'customer-service')).data.length, 1);

  const updated = ok<Agent>(
    t,
    await svc(ws, 'agents', 'update', agent.id, '--name', 'Renamed', '--status', 'paused'),
  );
  t.like(updated, { id: agent.id, name: 'Renamed', status: 'paused' });
  const deployed = ok<Agent>(t, await svc(ws, 'agents', 'deploy', agent.id));
  t.is(deployed.status, 'active');

  t.deepEqual(ok(t, await svc(ws, 'agents', 'delete', agent.id)), {
    id: agent.id,
    deleted: true,
  });
  failed(t, await svc(ws, 'agents', 'get', agent.id), 'agent_not_found');
  failed(t, await svc(ws, 'agents', 'delete', agent.id), 'agent_not_found');

  // Human output (no --json) names the agent.
  const other = await agentOverApi(ws, 'L2', false);
  const human = await d.cli(['agents', 'get', other.id, '--workspace', ws]);
  t.is(human.code, 0, human.stderr);
  t.true(human.stdout.includes(other.id));
});

test('create from -f FILE with flags overriding it; API errors exit 1 with the error code', async (t) => {
  const ws = await workspace('CLI create errors');
  const file = join(files, 'agent.json');
  writeFileSync(
    file,
    JSON.stringify({
      name: 'From file',
      ontology: 'finance-v2',
      type: 'sales',
      autonomy_level: 'L1',
    }),
  );
  const fromFile = ok<Agent>(t, await svc(ws, 'agents', 'create', '-f', file, '--autonomy', 'L2'));
  t.like(fromFile, { name: 'From file', type: 'sales', autonomy_level: 'L2' });

  // A level outside the API's is a usage error naming the levels, before any request (issue 55).
  const badLevel = await svc(
    ws,
    'agents',
    'create',
    '--name',
    'X',
    '--ontology',
    'retail-v1',
    '--autonomy',
    'L7',
  );
  usage(t, badLevel);
  t.regex(badLevel.stderr, /Allowed choices are L1, L2, L3, L4\./);
  failed(
    t,
    await svc(ws, 'agents', 'create', '--name', 'X', '--ontology', 'retail'),
    'invalid_parameter',
  );
  failed(t, await svc(ws, 'agents', 'deploy', 'agt_doesnotexist000000'), 'agent_not_found');
  failed(
    t,
    await svc(ws, 'agents', 'update', 'agt_doesnotexist000000', '--name', 'X'),
    'agent_not_found',
  );
  t.is((await restGet(ws, '/v1/agents')).total_count, 1, 'nothing else was created');
});

test('usage errors exit 2: missing flags, bad JSON flags, missing arguments, unknown subcommands', async (t) => {
  const ws = await workspace('CLI usage');
  const agent = await agentOverApi(ws, 'L2', false);
  usage(t, await svc(ws, 'agents', 'create', '--ontology', 'retail-v1'));
  usage(t, await svc(ws, 'agents', 'create', '--name', 'X'));
  usage(
    t,
    await svc(
      ws,
      'agents',
      'create',
      '--name',
      'X',
      '--ontology',
      'retail-v1',
      '--guardrails',
      '{oops',
    ),
  );
  usage(t, await svc(ws, 'agents', 'create', '-f', join(files, 'missing.json')));
  usage(t, await svc(ws, 'agents', 'get'));
  usage(t, await svc(ws, 'agents', 'execute', agent.id));
  usage(t, await execute(ws, agent.id, 'hi', '--context', 'not json'));
  usage(t, await svc(ws, 'agents', 'approve', agent.id));
  usage(t, await svc(ws, 'agents', 'frobnicate'));
  usage(t, await svc(ws, 'agents', 'knowledge', 'upload', agent.id, join(files, 'missing.pdf')));
  usage(t, await svc(ws, 'agents', 'stub', 'add', agent.id, '--result', '{"output":"x"}'));
  usage(t, await svc(ws, 'agents', 'stub', 'add', agent.id, '--match', 'x'));
  usage(t, await svc(ws, 'agents', 'stub', 'add', agent.id, '--match', 'x', '--delay', 'soon'));
  t.is((await restGet(ws, '/v1/agents')).total_count, 1);
});

test('execute --wait, execution, approve and reject', async (t) => {
  const ws = await workspace('CLI execute');
  const agent = await agentOverApi(ws, 'L2', false);
  const training = failed(
    t,
    await execute(ws, agent.id, 'Where is my order?', '--wait'),
    'agent_not_active',
  );
  t.is(training.agent_status, 'training');
  const deployed = await (await rest(ws))('POST', '/v1/agents/deploy', { agent_id: agent.id });
  t.is(deployed.status, 200, deployed.text);

  const waiting = ok(t, await execute(ws, agent.id, 'Where is my order?', '--wait'));
  t.regex(waiting.execution_id, /^exec_/);
  t.is(waiting.status, 'awaiting_approval');
  t.is(waiting.result.action, 'check_order_status');

  const shown = ok(t, await svc(ws, 'agents', 'execution', agent.id, waiting.execution_id));
  t.is(shown.status, 'awaiting_approval');
  const approved = ok(
    t,
    await svc(ws, 'agents', 'approve', agent.id, waiting.execution_id, '--notes', 'fine'),
  );
  t.like(approved, { status: 'completed', approval: { decision: 'approve', notes: 'fine' } });
  failed(t, await svc(ws, 'agents', 'reject', agent.id, waiting.execution_id), 'conflict');

  const second = await executeOverApi(ws, agent.id, 'Cancel my order');
  t.is(second.status, 202, second.text);
  t.is(second.execution.status, 'awaiting_approval');
  const rejected = ok(
    t,
    await svc(ws, 'agents', 'reject', agent.id, second.execution.execution_id),
  );
  t.like(rejected, { status: 'cancelled', approval: { decision: 'reject' } });

  // Without --wait: processing.
  const background = ok(
    t,
    await execute(ws, agent.id, 'Where is my parcel?', '--context', '{"order":"1"}'),
  );
  t.like(background, { agent_id: agent.id, status: 'processing' });
  failed(
    t,
    await svc(ws, 'agents', 'execution', agent.id, 'exec_doesnotexist00000'),
    'execution_not_found',
  );

  const l3 = await agentOverApi(ws, 'L3');
  const completed = ok(t, await execute(ws, l3.id, 'Where is my order?', '--wait'));
  t.is(completed.status, 'completed');
  const human = await d.cli([
    'agents',
    'execute',
    l3.id,
    '--input',
    'Where is my order?',
    '--wait',
    '--workspace',
    ws,
  ]);
  t.is(human.code, 0, human.stderr);
  t.true(human.stdout.includes('check_order_status'));
});

test('messages --send, messages (history) and analytics', async (t) => {
  const ws = await workspace('CLI messages');
  const agent = await agentOverApi(ws, 'L3');

  const reply = ok(
    t,
    await svc(ws, 'agents', 'messages', agent.id, '--send', 'Where is my order?'),
  );
  t.regex(reply.id, /^msg_/);
  t.regex(reply.conversation_id, /^conv_/);
  t.is(reply.role, 'agent');
  const next = ok(
    t,
    await svc(
      ws,
      'agents',
      'messages',
      agent.id,
      '--send',
      'And a refund?',
      '--conversation',
      reply.conversation_id,
    ),
  );
  t.is(next.conversation_id, reply.conversation_id);
  failed(
    t,
    await svc(ws, 'agents', 'messages', agent.id, '--send', 'Hi', '--conversation', 'conv_nope'),
    'not_found',
  );

  const history = ok(t, await svc(ws, 'agents', 'messages', agent.id));
  t.is(history.total_count, 4);
  t.is(history.data.length, 4);
  const limited = ok(
    t,
    await svc(
      ws,
      'agents',
      'messages',
      agent.id,
      '--conversation',
      reply.conversation_id,
      '--limit',
      '2',
    ),
  );
  t.is(limited.data.length, 2);
  t.true(limited.has_more);

  const executed = await executeOverApi(ws, agent.id, 'Where is my order?');
  t.is(executed.status, 200, executed.text);
  const analytics = ok(
    t,
    await svc(
      ws,
      'agents',
      'analytics',
      agent.id,
      '--period',
      '1d',
      '--metrics',
      'total_interactions,actions_by_type',
    ),
  );
  t.deepEqual(analytics, {
    agent_id: agent.id,
    period: '1d',
    metrics: { total_interactions: 3, actions_by_type: { check_order_status: 1 } },
  });
  usage(t, await svc(ws, 'agents', 'analytics', agent.id, '--period', '2d'));
  failed(
    t,
    await svc(ws, 'agents', 'analytics', agent.id, '--metrics', 'nonsense'),
    'invalid_parameter',
  );
});

test('knowledge upload, list and delete; the uploaded passage is quoted', async (t) => {
  const ws = await workspace('CLI knowledge');
  const agent = await agentOverApi(ws, 'L3');
  const passage = 'Returns are accepted within thirty days with the original receipt.';
  const pdf = join(files, 'returns.pdf');
  writeFileSync(pdf, buildPdf(passage));
  const docx = join(files, 'hours.docx');
  writeFileSync(docx, buildDocx('The showroom opens at nine on Saturdays.'));
  const fake = join(files, 'fake.pdf');
  writeFileSync(fake, 'not a pdf at all');

  const doc = ok(
    t,
    await svc(
      ws,
      'agents',
      'knowledge',
      'upload',
      agent.id,
      pdf,
      '--type',
      'policy',
      '--description',
      'Returns',
    ),
  );
  t.regex(doc.id, /^doc_/);
  t.like(doc, { format: 'pdf', chunk_count: 1, type: 'policy', filename: 'returns.pdf' });
  const word = ok(t, await svc(ws, 'agents', 'knowledge', 'upload', agent.id, docx));
  t.like(word, { format: 'docx', type: 'faq' });
  const refused = failed(
    t,
    await svc(ws, 'agents', 'knowledge', 'upload', agent.id, fake),
    'invalid_parameter',
  );
  t.is(refused.param, 'file');
  usage(t, await svc(ws, 'agents', 'knowledge', 'upload', agent.id, pdf, '--type', 'novel'));

  const list = ok(t, await svc(ws, 'agents', 'knowledge', 'list', agent.id));
  t.is(list.total_count, 2);
  t.deepEqual(list.data.map((x: { id: string }) => x.id).sort(), [doc.id, word.id].sort());

  const answered = await executeOverApi(ws, agent.id, 'Are returns accepted within thirty days?');
  t.is(answered.status, 200, answered.text);
  t.is(answered.execution.result.output, passage);

  t.deepEqual(ok(t, await svc(ws, 'agents', 'knowledge', 'delete', agent.id, doc.id)), {
    id: doc.id,
    deleted: true,
  });
  failed(t, await svc(ws, 'agents', 'knowledge', 'delete', agent.id, doc.id), 'not_found');
  t.is((await restGet(ws, `/v1/agents/${agent.id}/knowledge`)).total_count, 1);
});

test('stub add (result, fail, delay), list and clear', async (t) => {
  const ws = await workspace('CLI stubs');
  const agent = await agentOverApi(ws, 'L3');
  const result = { action: 'lookup_order', output: 'Order 9 shipped.', confidence: 0.9 };

  const stubAdd = (...args: string[]) => svc(ws, 'agents', 'stub', 'add', agent.id, ...args);
  const stub = ok(t, await stubAdd('--match', 'order 9', '--result', JSON.stringify(result)));
  t.regex(stub.id, /^stub_/);
  t.like(stub, { agent_id: agent.id, match: 'order 9', result, fail: null, delay_ms: null });
  const failing = ok(t, await stubAdd('--match', '/crm/i', '--fail', 'external_api_error'));
  t.like(failing, { match: '/crm/i', fail: 'external_api_error', result: null });
  const slow = ok(t, await stubAdd('--match', 'slow', '--delay', 'PT2M'));
  t.is(slow.delay_ms, 120_000);
  failed(t, await stubAdd('--match', 'x', '--fail', 'no_such_code'), 'invalid_parameter');
  failed(
    t,
    await svc(
      ws,
      'agents',
      'stub',
      'add',
      'agt_doesnotexist000000',
      '--match',
      'x',
      '--result',
      '{}',
    ),
    'agent_not_found',
  );

  const listed = ok(t, await svc(ws, 'agents', 'stub', 'list', agent.id)).data;
  t.deepEqual(
    listed.map((s: { id: string }) => s.id),
    [stub.id, failing.id, slow.id],
  );

  const hit = await executeOverApi(ws, agent.id, 'Where is ORDER 9?');
  t.is(hit.status, 200, hit.text);
  t.deepEqual(hit.execution.result, result);
  const error = failed(
    t,
    await execute(ws, agent.id, 'Check the CRM', '--wait'),
    'external_api_error',
  );
  t.is(error.status, 502);

  t.deepEqual(ok(t, await svc(ws, 'agents', 'stub', 'clear', agent.id)), { cleared: 3 });
  t.deepEqual(await control(d, 'agents.stubs.list', { agent_id: agent.id }, 'query'), []);
  const plain = await executeOverApi(ws, agent.id, 'Check the CRM');
  t.is(plain.status, 200, plain.text);
  t.is(plain.execution.status, 'completed');
});
