// How a workflow starts: by hand, from a webhook (its URL and a curl command that runs as is,
// signing when the trigger has a secret), on a schedule (the cron, its zone, and the scheduler's
// next run, next_run_at), or on events (the types it listens to).
import { html, time } from '../lib.js';

/** @param {{ wf: import('../lib.js').WorkflowDetail }} props */
export function TriggerFacts({ wf }) {
  const { type, config } = wf.trigger;
  return html`<dl class="facts trigger-facts">
      <dt>Type</dt>
      <dd>${type}</dd>
      ${type === 'schedule' && html`<${Schedule} wf=${wf} config=${config} />`}
      ${
        type === 'event' &&
        html`<dt>Event types</dt>
          <dd>
            ${/** @type {string[]} */ (config.event_types ?? []).map((pattern) => html`<code>${pattern}</code>${' '}`)}
          </dd>`
      }
      ${type === 'webhook' && wf.hook && html`<${Hook} hook=${wf.hook} />`}
    </dl>
    ${
      type === 'manual' &&
      html`<p class="muted">
        Started by hand: with the form below, <code>svc workflows run ${wf.id}</code>, or the
        REST${' '}<code>POST /v1/workflows/${wf.id}/execute</code>.
      </p>`
    }`;
}

/**
 * `config`: a schedule trigger's (its cron and zone).
 * @param {{ wf: import('../lib.js').WorkflowDetail, config: { cron?: unknown, timezone?: unknown } }} props
 */
function Schedule({ wf, config }) {
  // The workflow's next_run_at is the scheduler's due time (null unless active): the page
  // computes nothing.
  const next = wf.next_run_at;
  return html`<dt>Schedule</dt>
    <dd><code>${config.cron}</code> (${config.timezone ?? 'UTC'})</dd>
    <dt>Next run</dt>
    <dd data-field="next_run_at">
      ${next ? `${time(next)} (sandbox clock)` : 'none: the workflow is not active'}
    </dd>`;
}

/** @param {{ hook: NonNullable<import('../lib.js').WorkflowDetail['hook']> }} props */
function Hook({ hook }) {
  return html`<dt>Hook URL</dt>
    <dd><code data-field="hook_url">${hook.url}</code></dd>
    <dt>Signed</dt>
    <dd>
      ${
        hook.signed
          ? 'yes: each request carries X-Svc-Signature, an HMAC-SHA256 of "<t>.<body>" keyed by the trigger secret'
          : 'no: anyone on this machine who knows the URL can start a run'
      }
    </dd>
    <dt>Try it</dt>
    <dd>
      <pre class="json curl" tabindex="0" aria-label="curl command" data-field="curl">
${hook.curl}</pre>
      ${
        hook.signed &&
        html`<p class="muted">
          Set <code>HOOK_SECRET</code> to the trigger's secret first: it is stored sealed and never
          shown. Each run of the command signs anew (a signed request starts one run only).
        </p>`
      }
    </dd>`;
}
