// A signed webhook-trigger request cannot be replayed (issue 38, item 8), with the real daemon and
// CLI: the same signed bytes sent five times start one run (then 409 webhook_replayed), a restart
// between copies still refuses, `svc clock advance` does not make a copy pass (the signature's t
// is real time), a new signature is another request, and a signature past the 300 s tolerance
// is refused as out of tolerance.
import test from 'ava';
import { signatureHeader } from '../../shared/signature.js';
import { sharedDaemon } from '../helpers/setup.js';
import { activeAgent, apiFor, answerStep, createWorkflow } from '../helpers/workflows.js';

const SECRET = 'whsec_replay_e2e_secret';

// One daemon for both tests (a daemon start is 3-4 s of CPU), each on a hook path of its own.
// Serial, the tolerance test first: the other restarts the daemon (its address changes) and
// moves its clock, which the first must not meet half-way.
const own = sharedDaemon(test);

test.serial(
  'a copy of a signature past the 300 s tolerance is refused as out of tolerance',
  async (t) => {
    const { workspaceId } = await own.operator();
    const api = await apiFor(own, workspaceId);
    const agent = await activeAgent(api);
    await createWorkflow(api, {
      name: 'Signed refunds',
      status: 'active',
      trigger: { type: 'webhook', config: { path: 'refunds', secret: SECRET } },
      steps: answerStep(agent.id),
    });
    const body = JSON.stringify({ refund: 1 });
    const post = async (headers: Record<string, string>) => {
      const response = await fetch(`${own.url}/v1/hooks/${workspaceId}/refunds`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
      return { status: response.status, body: (await response.json()) as any };
    };
    // Signed 299 s ago: accepted now, out of tolerance two seconds later.
    const t0 = Math.floor(Date.now() / 1000) - 299;
    const signed = { 'x-svc-signature': signatureHeader(SECRET, body, t0) };
    t.is((await post(signed)).status, 202);
    while (Math.floor(Date.now() / 1000) <= t0 + 300) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const late = await post(signed);
    t.is(late.status, 401, JSON.stringify(late.body));
    t.is(late.body.error.code, 'unauthorized');
    t.is(late.body.error.reason, 'timestamp_out_of_tolerance');
  },
);

test.serial(
  'the same signed request is accepted once, across a restart and a moved clock',
  async (t) => {
    // It restarts the daemon (which changes its address) and moves the clock: the last test.
    const { workspaceId } = await own.operator();
    const api = await apiFor(own, workspaceId);
    const agent = await activeAgent(api);
    const workflowId = await createWorkflow(api, {
      name: 'Signed orders',
      status: 'active',
      trigger: { type: 'webhook', config: { path: 'orders', secret: SECRET } },
      steps: answerStep(agent.id),
    });
    const body = JSON.stringify({ order_id: 'A-1', amount: 40 });
    const t0 = Math.floor(Date.now() / 1000);
    const signed = { 'x-svc-signature': signatureHeader(SECRET, body, t0) };
    let url = own.url;
    const post = async (headers: Record<string, string>) => {
      const response = await fetch(`${url}/v1/hooks/${workspaceId}/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
      return { status: response.status, body: (await response.json()) as any };
    };
    const runs = async (): Promise<any[]> => {
      const listed = await own.cli(['workflows', 'executions', workflowId, '--json']);
      t.is(listed.code, 0, listed.stderr);
      return listed.json().data;
    };
    const assertReplayed = (answer: { status: number; body: any }, executionId: string) => {
      t.is(answer.status, 409, JSON.stringify(answer.body));
      t.is(answer.body.error.code, 'webhook_replayed');
      t.is(answer.body.error.type, 'conflict_error');
      t.is(answer.body.error.param, 'X-Svc-Signature');
      t.is(answer.body.error.execution_id, executionId);
      t.regex(answer.body.error.message, /already accepted .*sign the request anew/);
    };

    const first = await post(signed);
    t.is(first.status, 202, JSON.stringify(first.body));
    const executionId = first.body.data.execution_id as string;
    for (let copy = 0; copy < 4; copy += 1) assertReplayed(await post(signed), executionId);
    t.deepEqual(
      (await runs()).map((run) => run.execution_id),
      [executionId],
    );

    // The accepted signatures are stored: a restart does not open the door again.
    t.is((await own.cli(['daemon', 'stop'])).code, 0);
    const restarted = await own.cli(['daemon', 'start', '--port', '0', '--json']);
    t.is(restarted.code, 0, restarted.stderr);
    url = restarted.json().url;
    assertReplayed(await post(signed), executionId);

    // The sandbox clock is not what t is compared with: moving it past the tolerance lets no copy in.
    t.is((await own.cli(['clock', 'advance', '10m'])).code, 0);
    assertReplayed(await post(signed), executionId);

    // A new signature (another t) is another request.
    const fresh = await post({ 'x-svc-signature': signatureHeader(SECRET, body, t0 + 1) });
    t.is(fresh.status, 202, JSON.stringify(fresh.body));
    t.is((await runs()).length, 2);
  },
);
