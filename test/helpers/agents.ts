// Agents that a test needs as a means, not as the subject: created through the REST API and,
// unless told otherwise, deployed so that they answer at once (no training period in the way).
import type { apiCaller } from './api.js';

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
