// An execution matches its agent's sandbox stubs once: each match runs every stub's pattern
// (on RE2), and admission (the stub's delay) and the answer (its result or failure) share it.
import test from 'ava';
import type { Services } from '../../daemon/app/services.js';
import { servicesFor } from '../helpers/services.js';

/** An active L3 agent of the default workspace, and a count of the stub matches made. */
function agentWithCountedMatches(svc: Services): { agentId: string; matches: () => number } {
  const workspace = svc.workspaces.get(svc.workspaces.defaultWorkspaceId)!;
  const agent = svc.agents.create(workspace, {
    name: 'Stubbed',
    ontology: 'retail-v1',
    type: 'customer-service',
    autonomy_level: 'L3',
  });
  svc.agents.deploy(workspace.id, agent.id);
  let matches = 0;
  const match = svc.stubs.match.bind(svc.stubs);
  svc.stubs.match = (agentId, input) => {
    matches += 1;
    return match(agentId, input);
  };
  return { agentId: agent.id, matches: () => matches };
}

test('an execution answered by a stub matches the stubs once', async (t) => {
  const svc = servicesFor(t);
  const { agentId, matches } = agentWithCountedMatches(svc);
  svc.stubs.add(agentId, {
    match: 'refund',
    result: { action: 'refund', output: 'Refunded.', confidence: 0.9 },
  });
  const workspaceId = svc.workspaces.defaultWorkspaceId;

  const answered = await svc.executions.execute(workspaceId, agentId, {
    input: 'I want a refund',
    wait_for_completion: true,
  });
  t.is(answered.execution.status, 'completed');
  t.is(answered.execution.result?.output, 'Refunded.');
  t.is(matches(), 1);

  const decided = svc.executions.decideLocally(workspaceId, agentId, { input: 'refund please' });
  t.truthy(decided);
  t.is(matches(), 2);
});

test('an execution no stub answers matches the stubs once, and the brain answers', async (t) => {
  const svc = servicesFor(t);
  const { agentId, matches } = agentWithCountedMatches(svc);
  svc.stubs.add(agentId, { match: 'refund', fail: 'external_api_error' });

  const answered = await svc.executions.execute(svc.workspaces.defaultWorkspaceId, agentId, {
    input: 'Where is my order?',
    wait_for_completion: true,
  });
  t.is(answered.execution.status, 'completed');
  t.not(answered.execution.result?.output, undefined);
  t.is(matches(), 1);
});
