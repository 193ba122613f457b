// The baseline of the workflow bench (bench/workflows.ts): a bare node:http server (one process,
// so one core) answering POST /workflow-execute the least a JSON API can: read and parse the
// body, build a completed five-step execution of the same shape and size as the daemon's answer
// to POST /v1/workflows/{id}/execute with wait_for_completion (ids, timestamps, five step
// results), stringify it and send it. No auth, no database, no steps actually run.
//
// Started as `node --import tsx bench/workflow-baseline.ts`; it listens on 127.0.0.1 on a free
// port and prints `{"url":"http://127.0.0.1:<port>"}` as its first stdout line.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function id(prefix: string, length = 20): string {
  let out = `${prefix}_`;
  for (const byte of randomBytes(length)) out += ALPHABET[byte % ALPHABET.length];
  return out;
}

const workflowId = id('wfl');
let counter = 0;

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

function execution(input: Record<string, unknown>) {
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

function send(response: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'x-request-id': `req_${++counter}`,
  });
  response.end(text);
}

function readJson(request: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
    request.on('error', reject);
  });
}

async function handle(request: IncomingMessage, response: ServerResponse) {
  if (request.method === 'POST' && request.url === '/workflow-execute') {
    try {
      const body = (await readJson(request)) as { input?: Record<string, unknown> };
      send(response, 200, {
        data: execution(body.input ?? {}),
        meta: { request_id: `req_${counter}`, timestamp: new Date().toISOString() },
      });
    } catch {
      send(response, 400, { error: { code: 'invalid_request_body' } });
    }
    return;
  }
  send(response, 404, { error: { code: 'not_found' } });
}

const server = createServer((request, response) => void handle(request, response));
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
