// An agent's analytics for a period on the daemon clock (GET /v1/agents/{id}/analytics): the
// same figures, in words. Read when shown and on Refresh, not on each execution: they are
// computed from every execution of the period (about 0.4 s at 100,000), and an agent that is
// busy would have the daemon computing them again all the time.
import {
  ErrorNote,
  Loading,
  duration,
  get,
  html,
  noSubmit,
  onValue,
  useLoad,
  useState,
} from '../lib.js';

const PERIODS = [
  ['1d', 'last day'],
  ['7d', 'last 7 days'],
  ['30d', 'last 30 days'],
  ['90d', 'last 90 days'],
];

/** @param {number | undefined} ratio Left out of an answer (the metrics filter): a dash. */
const percent = (ratio) => (ratio === undefined ? '—' : `${Math.round(ratio * 1000) / 10}%`);

/** @param {{ agentId: string }} props */
export function AgentAnalytics({ agentId }) {
  const [period, setPeriod] = useState('7d');
  const { data, error, reload } = useLoad(
    () => get('/agents/:agent_id/analytics', { params: { agent_id: agentId }, query: { period } }),
    [agentId, period],
  );
  const metrics = data?.metrics;
  const actions = Object.entries(metrics?.actions_by_type ?? {});
  return html`<form class="filters" onSubmit=${noSubmit}>
      <label
        >Period
        <select value=${period} onChange=${onValue(setPeriod)}>
          ${PERIODS.map(([value, words]) => html`<option value=${value}>${words}</option>`)}
        </select>
      </label>
      <button type="button" class="secondary" onClick=${reload}>Refresh</button>
    </form>
    <${ErrorNote} error=${error} />
    ${!data && !error && html`<${Loading} what="analytics" />`}
    ${
      metrics &&
      html`<dl class="facts" aria-label="Analytics">
        <dt>Interactions</dt>
        <dd>${metrics.total_interactions}</dd>
        <dt>Success rate</dt>
        <dd>${percent(metrics.success_rate)}</dd>
        <dt>Average response time</dt>
        <dd>${duration(metrics.avg_response_time_ms)}</dd>
        <dt>Escalation rate</dt>
        <dd>${percent(metrics.escalation_rate)}</dd>
        <dt>Satisfaction (1-5)</dt>
        <dd>${metrics.customer_satisfaction ?? '—'}</dd>
        <dt>L2 approval rate</dt>
        <dd>${percent(metrics.autonomy_performance?.l2_approval_rate)}</dd>
        <dt>L3 success rate</dt>
        <dd>${percent(metrics.autonomy_performance?.l3_success_rate)}</dd>
        <dt>Actions</dt>
        <dd>
          ${actions.length === 0 ? 'none' : actions.map(([action, n]) => `${action} × ${n}`).join(', ')}
        </dd>
      </dl>`
    }`;
}
