// Agents that a test needs as a means, not as the subject: created through the REST API and,
// unless told otherwise, deployed so that they answer at once (no training period in the way).
import type { apiCaller, ControlTarget } from './api.js';
import { readUntil } from './events.js';

/**
 * Creates an L3 customer-service agent on the retail-v1 ontology (L3: no approval in the way of
 * its answers), with `fields` on top, deploys it unless `deploy` is false, and returns its id.
 */
export async function createAgent(
  call: ReturnType<typeof apiCaller>,
  fields: Record<string, unknown> = {},
  deploy = true,
): Promise<string> {
  const created = await call('POST', '/v1/agents', {
    name: 'Agent',
    ontology: 'retail-v1',
    type: 'customer-service',
    autonomy_level: 'L3',
    ...fields,
  });
  if (created.status !== 201) throw new Error(`create agent: ${created.status} ${created.text}`);
  const id = created.body.data.id as string;
  if (deploy) {
    const deployed = await call('POST', '/v1/agents/deploy', { agent_id: id });
    if (deployed.status !== 200) throw new Error(`deploy: ${deployed.status} ${deployed.text}`);
  }
  return id;
}

/**
 * An agent execution once `done` holds (by default: no longer processing), read again each time
 * the event stream announces something about it; fails after the bound.
 */
export async function executionWhen(
  target: ControlTarget,
  call: ReturnType<typeof apiCaller>,
  agentId: string,
  executionId: string,
  done: (execution: any) => boolean = (execution) => execution.status !== 'processing',
): Promise<any> {
  return readUntil(
    target,
    async () => {
      const answer = await call('GET', `/v1/agents/${agentId}/executions/${executionId}`);
      if (answer.status !== 200) throw new Error(`get execution: ${answer.status} ${answer.text}`);
      return answer.body.data;
    },
    done,
    (event) => event.data.execution_id === executionId,
    { filter: { types: ['agent.execution.*'] }, what: `change of execution ${executionId}` },
  );
}
