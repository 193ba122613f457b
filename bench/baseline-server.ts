// The baseline for `npm run bench`: a bare node:http server (one process, so one core) that does
// the least a JSON API can do per request: route on method + path, build the answer object, add
// a request id and a timestamp, JSON.stringify it and send it. No auth, no database, no logging.
// Its answers have the size and shape of the daemon's, so daemon/baseline is the cost of
// everything the daemon does on top (access gate, SQLite, validation, logging, Fastify).
//
// Started by bench/run.ts as `node --import tsx bench/baseline-server.ts`; it listens on
// 127.0.0.1 on a free port and prints `{"url":"http://127.0.0.1:<port>"}` as its first stdout line.
//
// With --fastify it serves GET /me only, through a bare Fastify 5 app (one async route with a
// response schema, so fast-json-stringify writes it; no logger, no hooks, no plugins): the
// floor the daemon's Fastify server starts from (bench/cases/floor.ts).
//
// Routes (add one here when a scenario in run.ts needs a new baseline path):
//   GET  /me      like GET /v1/auth/me
//   GET  /events  like GET /v1/events?limit=20 (a 20-item page of agent.created events)
//   POST /echo    reads and parses a JSON body, answers 201 with it as data (for POST scenarios)
//   GET  /agent   like GET /v1/agents/{id} (an active L3 agent)
//   POST /execute like POST /v1/agents/{id}/execute with wait_for_completion: reads and parses the
//                 JSON body, answers 200 with a completed execution of its input
//   POST /workflow-execute like POST /v1/workflows/{id}/execute with wait_for_completion: a
//                 completed five-step execution (ids, timestamps, five step results) of its input,
//                 the shape and size of the workflows case's answer, without running any step
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function id(prefix: string, length = 20): string {
  const bytes = randomBytes(length);
  let out = `${prefix}_`;
  for (const byte of bytes) out += ALPHABET[byte % ALPHABET.length];
  return out;
}

const workspaceId = id('ws');
let requestCounter = 0;
const requestPrefix = id('req', 10);

function meta(extra: Record<string, unknown> = {}) {
  requestCounter += 1;
  return {
    request_id: `${requestPrefix}${String(requestCounter).padStart(6, '0')}`,
    timestamp: new Date().toISOString(),
    ...extra,
  };
}

function sampleEvent(at: string) {
  return {
    id: id('evt'),
    type: 'agent.created',
    created_at: at,
    workspace_id: workspaceId,
    data: {
      id: id('agt'),
      workspace_id: workspaceId,
      name: 'Sample support agent',
      description: 'Answers customer questions',
      type: 'customer-service',
      ontology: 'retail-v1',
      autonomy_level: 'L2',
      status: 'active',
      capabilities: { answer_questions: true, issue_refunds: false },
      guardrails: {
        require_approval_for: ['issue_refund'],
        blocked_actions: [],
        rate_limits: { actions_per_hour: 100 },
      },
      personality: { tone: 'friendly', response_length: 'short', empathy_level: 'high' },
      created_at: at,
      updated_at: at,
      last_active_at: null,
      stats: { total_interactions: 0, success_rate: 0, avg_response_time_ms: 0 },
    },
  };
}

const me = {
  user_id: id('usr'),
  workspace_id: workspaceId,
  scopes: ['admin'],
  tier: 'enterprise',
  environment: 'sandbox',
  credential_type: 'api_key',
};

const agentCreatedAt = new Date(Date.UTC(2026, 0, 1)).toISOString();
const agent = {
  id: id('agt'),
  workspace_id: workspaceId,
  name: 'Bench',
  description: null,
  type: 'customer-service',
  ontology: 'retail-v1',
  autonomy_level: 'L3',
  status: 'active',
  capabilities: {},
  guardrails: {
    require_approval_for: [],
    blocked_actions: [],
    rate_limits: { actions_per_hour: null },
  },
  personality: { tone: null, response_length: null, empathy_level: null },
  brain: null,
  created_at: agentCreatedAt,
  updated_at: agentCreatedAt,
  last_active_at: null,
  stats: { total_interactions: 0, success_rate: 0, avg_response_time_ms: 0 },
};

function execution(input: string) {
  const at = new Date().toISOString();
  return {
    execution_id: id('exec'),
    agent_id: agent.id,
    status: 'completed',
    input,
    result: {
      action: 'check_order_status',
      output: `Understood. Regarding "${input}": I will look up the status of this order.`,
      confidence: 0.75,
    },
    error: null,
    execution_time_ms: 1,
    approval: null,
    created_at: at,
    completed_at: at,
  };
}

const workflowId = id('wfl');
const STEPS = [
  { id: 'classify', name: 'Classify the request', type: 'agent_action' },
  { id: 'check', name: 'Confident enough?', type: 'condition' },
  { id: 'draft', name: 'Draft the answer', type: 'agent_action' },
  { id: 'notify', name: 'Notify the CRM', type: 'webhook' },
  { id: 'close', name: 'Close the ticket', type: 'agent_action' },
] as const;

function agentResult(action: string, text: string) {
  return {
    execution_id: id('exec'),
    agent_id: id('agt'),
    action,
    output: `Handled: ${text}`,
    confidence: 0.75,
  };
}

function workflowExecution(input: Record<string, unknown>) {
  const at = new Date().toISOString();
  const text = String(input.text ?? '');
  const results: Record<string, unknown> = {
    classify: agentResult('answer_question', text),
    check: { value: true, next_step_id: 'draft' },
    draft: agentResult('answer_question', text),
    notify: { status: 200, body: { received: true }, duration_ms: 1 },
    close: agentResult('answer_question', text),
  };
  return {
    execution_id: id('wex'),
    workflow_id: workflowId,
    workflow_name: 'Bench: five durable steps',
    status: 'completed',
    trigger: { type: 'manual' },
    input,
    current_step: null,
    steps_completed: 5,
    steps_total: 5,
    step_results: STEPS.map((step) => ({
      step_id: step.id,
      step_name: step.name,
      type: step.type,
      status: 'completed',
      attempt: 1,
      result: results[step.id],
      error: null,
      duration_ms: 1,
      started_at: at,
      completed_at: at,
    })),
    result: results.close,
    error: null,
    failed_step: null,
    duration_seconds: 0.005,
    created_at: at,
    completed_at: at,
    cancelled_at: null,
  };
}

const EVENT_COUNT = 200;
const events = Array.from({ length: EVENT_COUNT }, (_, index) =>
  sampleEvent(new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString()),
).reverse();

type Body = Record<string, unknown> & { meta: { request_id: string } };

function send(response: ServerResponse, status: number, body: Body) {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'x-request-id': body.meta.request_id,
  });
  response.end(text);
}

function readJson(request: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('error', reject);
    request.on('end', () => {
      try {
        resolve(chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {});
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

async function handle(request: IncomingMessage, response: ServerResponse) {
  const path = (request.url ?? '/').split('?')[0];
  if (request.method === 'GET' && path === '/me') {
    send(response, 200, { data: me, meta: meta() });
    return;
  }
  if (request.method === 'GET' && path === '/events') {
    const page = events.slice(0, 20);
    const last = page[page.length - 1];
    send(response, 200, {
      data: page,
      has_more: true,
      total_count: events.length,
      meta: meta({ has_more: true, next_cursor: last ? last.id : null }),
    });
    return;
  }
  if (request.method === 'GET' && path === '/agent') {
    send(response, 200, { data: agent, meta: meta() });
    return;
  }
  if (request.method === 'POST' && path === '/execute') {
    try {
      const body = (await readJson(request)) as { input?: unknown };
      send(response, 200, { data: execution(String(body.input ?? '')), meta: meta() });
    } catch {
      send(response, 400, { error: { code: 'invalid_request_body' }, meta: meta() });
    }
    return;
  }
  if (request.method === 'POST' && path === '/workflow-execute') {
    try {
      const body = (await readJson(request)) as { input?: Record<string, unknown> };
      send(response, 200, { data: workflowExecution(body.input ?? {}), meta: meta() });
    } catch {
      send(response, 400, { error: { code: 'invalid_request_body' }, meta: meta() });
    }
    return;
  }
  if (request.method === 'POST' && path === '/echo') {
    try {
      const body = await readJson(request);
      send(response, 201, {
        data: { id: id('obj'), ...(body as Record<string, unknown>) },
        meta: meta(),
      });
    } catch {
      send(response, 400, { error: { code: 'invalid_request_body' }, meta: meta() });
    }
    return;
  }
  send(response, 404, { error: { code: 'not_found' }, meta: meta() });
}

/** The same GET /me answer through Fastify, its body written from a response schema. */
async function fastifyServer(): Promise<Server> {
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ logger: false });
  const text = { type: 'string' } as const;
  const schema = {
    response: {
      200: {
        type: 'object',
        properties: {
          data: {
            type: 'object',
            properties: {
              user_id: text,
              workspace_id: text,
              scopes: { type: 'array', items: text },
              tier: text,
              environment: text,
              credential_type: text,
            },
          },
          meta: { type: 'object', properties: { request_id: text, timestamp: text } },
        },
      },
    },
  };
  app.get('/me', { schema }, async (_request, reply) => {
    const body = { data: me, meta: meta() };
    void reply.header('x-request-id', body.meta.request_id);
    return body;
  });
  await app.ready();
  return app.server;
}

const server = process.argv.includes('--fastify')
  ? await fastifyServer()
  : createServer((request, response) => void handle(request, response));
server.keepAliveTimeout = 72_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no TCP address');
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${address.port}` })}\n`);
});
const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
