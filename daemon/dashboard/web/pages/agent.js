// One agent (a deep link: agt_...): its status, autonomy, guardrails and brain.
import { ErrorNote, Json, Loading, Status, get, html, time, useLoad } from '../lib.js';

export function Agent({ params }) {
  const { data: agent, error } = useLoad(
    () => get(`/agents/${params.id}`),
    [params.id],
    (type, message) => type === 'event' && message.data?.id === params.id,
  );
  return html`
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
        <section aria-labelledby="agent-def-h">
          <h2 id="agent-def-h">Definition</h2>
          <${Json} value=${agent} />
        </section>`
    }
  `;
}
