// One agent (a deep link: agt_...): its status, autonomy, guardrails, the executions awaiting
// approval (Approve / Reject), its recent executions, knowledge documents and their passages,
// sandbox stubs, analytics and its definition.
import { ErrorNote, Json, Link, Loading, Status, get, href, html, time, useLoad } from '../lib.js';
import { ExecutionCard } from '../parts/execution-card.js';
import { AgentExecutions, aboutExecutionsOf } from '../parts/agent-executions.js';
import { AgentKnowledge } from '../parts/agent-knowledge.js';
import { AgentStubs } from '../parts/agent-stubs.js';
import { AgentAnalytics } from '../parts/agent-analytics.js';

/** @param {import('../lib.js').PageProps} props */
export function Agent({ params }) {
  const { data: agent, error } = useLoad(
    () => get('/agents/:agent_id', { params: { agent_id: params.id } }),
    [params.id],
    (type, message) => type === 'event' && message.data?.id === params.id,
  );
  return html`
    <p class="crumbs"><${Link} to=${href('/agents')}>Agents<//></p>
    <h1>Agent ${agent ? agent.name : html`<code>${params.id}</code>`}</h1>
    <${ErrorNote} error=${error} />
    ${!agent && !error && html`<${Loading} what="the agent" />`}
    ${
      agent &&
      html`<dl class="facts">
          <dt>Id</dt>
          <dd><code>${agent.id}</code></dd>
          <dt>Status</dt>
          <dd><${Status} value=${agent.status} /></dd>
          <dt>Type</dt>
          <dd>${agent.type}</dd>
          <dt>Autonomy</dt>
          <dd>${agent.autonomy_level}</dd>
          <dt>Approval needed for</dt>
          <dd>${agent.guardrails.require_approval_for.join(', ') || 'nothing'}</dd>
          <dt>Blocked actions</dt>
          <dd>${agent.guardrails.blocked_actions.join(', ') || 'none'}</dd>
          <dt>Actions per hour</dt>
          <dd>${agent.guardrails.rate_limits.actions_per_hour ?? 'no limit'}</dd>
          <dt>Last active</dt>
          <dd>${time(agent.last_active_at)}</dd>
        </dl>
        <${Section} id="agent-approvals-h" title="Awaiting approval">
          <${AwaitingApproval} agent=${agent} />
        <//>
        <${Section} id="agent-executions-h" title="Recent executions">
          <${AgentExecutions} agentId=${agent.id} />
        <//>
        <${Section} id="agent-knowledge-h" title="Knowledge">
          <${AgentKnowledge} agentId=${agent.id} />
        <//>
        <${Section} id="agent-stubs-h" title="Stubs">
          <${AgentStubs} agentId=${agent.id} />
        <//>
        <${Section} id="agent-analytics-h" title="Analytics">
          <${AgentAnalytics} agentId=${agent.id} />
        <//>
        <${Section} id="agent-def-h" title="Definition">
          <${Json} value=${agent} />
        <//>`
    }
  `;
}

/** @param {{ id: string, title: string, children?: import('../lib.js').Children }} props */
function Section({ id, title, children }) {
  return html`<section aria-labelledby=${id}>
    <h2 id=${id}>${title}</h2>
    ${children}
  </section>`;
}

/** This agent's executions waiting for a person: the same cards and decision as Approvals. */
/** @param {{ agent: { id: string, name: string } }} props */
function AwaitingApproval({ agent }) {
  const { data, error, reload } = useLoad(
    () =>
      get('/agents/:agent_id/executions', {
        params: { agent_id: agent.id },
        query: { awaiting: 'true', limit: 20 },
      }),
    [agent.id],
    (...args) => args[0] === 'run' || aboutExecutionsOf(agent.id)(...args),
  );
  if (error) return html`<${ErrorNote} error=${error} />`;
  if (!data) return html`<${Loading} what="executions awaiting approval" />`;
  if (data.data.length === 0)
    return html`<p class="empty">Nothing of this agent awaits approval.</p>`;
  return html`<ul class="cards">
      ${data.data.map(
        (execution) =>
          html`<${ExecutionCard}
            key=${execution.execution_id}
            execution=${execution}
            agentName=${agent.name}
            heading="h3"
            onDecided=${reload}
          />`,
      )}
    </ul>
    ${data.has_more && html`<p class="muted">${data.total_count} in all: see <${Link} to=${href('/approvals')}>Approvals<//>.</p>`}`;
}
