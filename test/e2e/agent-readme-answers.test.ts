// The README's agent examples answer as a person would expect (issue 41), through the real CLI
// and daemon with the simulated brain: with the repo's FAQ uploaded, "When do orders ship?"
// (and "Do you ship internationally?") quotes the Shipping paragraph, "How do I get a refund?"
// takes issue_refund quoting the Refunds one, and "How long does shipping take?" the paragraph, not its
// heading; a workflow step's config.action is the action its agent takes, and its output reads
// as sentences (no quoted JSON, however many steps feed each other); an action the agent's
// capabilities switch off fails the step, naming it and the actions the agent may take.
import test, { type ExecutionContext } from 'ava';
import { fileURLToPath } from 'node:url';
import { startDaemon, type CliResult, type TestDaemon } from '../helpers/daemon.js';
import { activeAgent, apiFor, createWorkflow, type Api } from '../helpers/workflows.js';

const FAQ = fileURLToPath(new URL('../../fixtures/support-desk/faq.md', import.meta.url));
const SHIPPING =
  'Standard shipping takes 2 to 4 business days. Express shipping arrives the next business day when ordered before 2 pm.';

const REFUNDS =
  'Refunds are issued within 5 business days to the original payment method. Orders over 100 EUR need the approval of the refund team.';

let d: TestDaemon;

test.before(async () => {
  d = await startDaemon();
});

test.after.always(async () => {
  await d?.stop();
});

function ok<T = any>(t: ExecutionContext, result: CliResult): T {
  t.is(result.code, 0, `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
  return result.json<T>();
}

test("README: the FAQ agent answers 'When do orders ship?' from the Shipping section", async (t) => {
  const ws = await d.createWorkspace('README agents');
  const svc = (...args: string[]) => d.cli([...args, '--workspace', ws, '--json']);
  // The README's commands, as written there.
  const agent = ok(
    t,
    await svc(
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
    ),
  );
  ok(t, await svc('agents', 'deploy', agent.id));
  const document = ok(
    t,
    await svc('agents', 'knowledge', 'upload', agent.id, FAQ, '--type', 'faq'),
  );
  t.is(document.chunk_count, 2, 'a heading is not a passage of its own');

  const ship = ok(
    t,
    await svc('agents', 'execute', agent.id, '--input', 'When do orders ship?', '--wait'),
  );
  t.is(ship.result.output, SHIPPING);
  t.is(
    ship.result.confidence,
    0.95,
    'both terms covered: "orders" ~ "ordered", "ship" ~ "shipping"',
  );

  const howLong = ok(
    t,
    await svc('agents', 'execute', agent.id, '--input', 'How long does shipping take?', '--wait'),
  );
  t.is(howLong.result.output, SHIPPING, 'the paragraph, not the bare heading');

  // Issue 55: the refund question takes the refund action (a keyword decides it) and quotes the
  // Refunds paragraph; the international question quotes the Shipping one (one term of two).
  const refund = ok(
    t,
    await svc('agents', 'execute', agent.id, '--input', 'How do I get a refund?', '--wait'),
  );
  t.is(refund.result.action, 'issue_refund');
  t.is(refund.result.output, REFUNDS);
  const abroad = ok(
    t,
    await svc('agents', 'execute', agent.id, '--input', 'Do you ship internationally?', '--wait'),
  );
  t.is(abroad.result.action, 'answer_question');
  t.is(abroad.result.output, SHIPPING);
});

/** Runs a workflow and waits for its end; answers the execution. */
async function run(api: Api, workflowId: string, input: Record<string, unknown>) {
  const answer = await api('POST', `/workflows/${workflowId}/execute`, {
    input,
    wait_for_completion: true,
  });
  return answer;
}

function noNestedJson(t: ExecutionContext, output: unknown): void {
  t.is(typeof output, 'string');
  t.notRegex(String(output), /[{}"\\]/, `reads as sentences: ${String(output)}`);
}

test("README: a step's config.action is the action taken; outputs read as sentences", async (t) => {
  const ws = await d.createWorkspace('README workflows');
  const api = await apiFor(d, ws);
  const { id: agentId } = await activeAgent(api);
  // refund.yaml's first step, and the README's follow-up ticket, each feeding the next.
  const workflowId = await createWorkflow(api, {
    name: 'Refund requests',
    steps: [
      {
        id: 'classify',
        name: 'Classify the request',
        type: 'agent_action',
        agent_id: agentId,
        config: { action: 'classify', input_mapping: { text: '{{trigger.payload.message}}' } },
        next_step_id: 'ticket',
      },
      {
        id: 'ticket',
        name: 'Open a ticket',
        type: 'agent_action',
        agent_id: agentId,
        config: {
          action: 'open_ticket',
          input_mapping: {
            order: '{{trigger.payload.order_id}}',
            summary: '{{classify.result.output}}',
          },
        },
        next_step_id: 'report',
      },
      {
        id: 'report',
        name: 'Report',
        type: 'agent_action',
        agent_id: agentId,
        config: { action: 'summarize', input_mapping: { ticket: '{{ticket.result.output}}' } },
      },
    ],
  });
  const answer = await run(api, workflowId, { order_id: 'A-1', message: 'refund please' });
  t.is(answer.status, 200, JSON.stringify(answer.body));
  const steps = answer.body.data.step_results as { step_id: string; result: any }[];
  const result = (id: string) => steps.find((step) => step.step_id === id)!.result;
  t.like(result('classify'), {
    action: 'classify',
    output: 'Understood. This reads as a refund request: refund please.',
  });
  t.like(result('ticket'), {
    action: 'open_ticket',
    output:
      'Understood. I will carry out the open ticket action: order A-1, summary Understood. This reads as a refund request: refund please.',
  });
  t.is(result('report').action, 'summarize');
  for (const id of ['classify', 'ticket', 'report']) noNestedJson(t, result(id).output);
});

test('a step whose action the agent may not take fails, naming it and the allowed actions', async (t) => {
  const ws = await d.createWorkspace('README refused action');
  const api = await apiFor(d, ws);
  const { id: agentId } = await activeAgent(api, { capabilities: { issue_refund: false } });
  const workflowId = await createWorkflow(api, {
    name: 'Refund at once',
    steps: [
      {
        id: 'pay',
        name: 'Pay the refund',
        type: 'agent_action',
        agent_id: agentId,
        config: {
          action: 'issue_refund',
          input_mapping: { order: '{{trigger.payload.order_id}}' },
        },
      },
    ],
  });
  const answer = await run(api, workflowId, { order_id: 'A-2' });
  t.is(answer.status, 500, JSON.stringify(answer.body));
  const error = answer.body.error;
  t.is(error.code, 'step_failed');
  t.is(error.underlying_error.code, 'guardrail_violation');
  const message = error.underlying_error.message as string;
  t.true(message.includes("'issue_refund'"), message);
  t.true(message.includes('capabilities.issue_refund is false'), message);
  t.true(message.includes('answer_question, cancel_order, check_order_status'), message);
  t.false(message.includes(', issue_refund,'), 'the switched-off action is not offered');
});
