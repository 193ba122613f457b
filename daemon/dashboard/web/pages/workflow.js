// One workflow (a deep link: wfl_...): its status and figures, its steps drawn as a graph, how it
// is triggered, a form to start a run with an edited input, its latest runs and its versions.
import { ErrorNote, Json, Link, Loading, Status, get, href, html, time, useLoad } from '../lib.js';
import { RunTable } from '../parts/run-table.js';
import { StartRun } from '../parts/start-run.js';
import { StepGraph } from '../parts/step-graph.js';
import { TriggerFacts } from '../parts/trigger-facts.js';
import { TriggerHook } from '../parts/trigger-hook.js';
import { Versions } from '../parts/versions.js';

/** @param {import('../lib.js').PageProps} props */
export function Workflow({ params }) {
  const workflow = useLoad(
    () => get('/workflows/:workflow_id', { params: { workflow_id: params.id } }),
    [params.id],
    (type, message) =>
      type === 'event' &&
      (message.data?.workflow_id === params.id || message.data?.id === params.id),
  );
  const runs = useLoad(
    () => get('/runs', { query: { workflow_id: params.id, limit: 10 } }),
    [params.id],
    (type, message) => type === 'run' && message.workflow_id === params.id,
  );
  const wf = workflow.data;
  return html`
    <p class="crumbs"><${Link} to=${href('/workflows')}>Workflows<//></p>
    <h1>Workflow ${wf ? wf.name : html`<code>${params.id}</code>`}</h1>
    <${ErrorNote} error=${workflow.error} />
    ${!wf && !workflow.error && html`<${Loading} what="the workflow" />`}
    ${
      wf &&
      html`<dl class="facts">
          <dt>Id</dt>
          <dd><code>${wf.id}</code></dd>
          <dt>Status</dt>
          <dd><${Status} value=${wf.status} /></dd>
          <dt>Trigger</dt>
          <dd>${wf.trigger.type}</dd>
          <dt>Last run</dt>
          <dd>${time(wf.last_executed_at)}</dd>
          <dt>Success rate</dt>
          <dd>
            ${wf.stats.total_executions === 0 ? '—' : `${Math.round(wf.stats.success_rate * 100)}% of ${wf.stats.total_executions} runs`}
          </dd>
        </dl>
        <section aria-labelledby="wf-trigger-h">
          <h2 id="wf-trigger-h">Trigger</h2>
          <${TriggerFacts} wf=${wf} />
          ${
            wf.hook &&
            (runs.data || runs.error) &&
            html`<${TriggerHook} key=${wf.id} wf=${wf} lastInput=${runs.data?.data[0]?.input} />`
          }
        </section>
        <section aria-labelledby="wf-start-h">
          <h2 id="wf-start-h">Start a run</h2>
          ${
            runs.data || runs.error
              ? html`<${StartRun} key=${wf.id} wf=${wf} lastInput=${runs.data?.data[0]?.input} />`
              : html`<${Loading} what="the latest input" />`
          }
        </section>
        <section aria-labelledby="wf-runs-h">
          <h2 id="wf-runs-h">Latest runs</h2>
          <${RunTable} runs=${runs} label=${`Runs of ${wf.name}`} />
          <p><${Link} to=${href('/runs', { workflow: wf.id })}>All runs of this workflow<//></p>
        </section>
        <section aria-labelledby="wf-def-h">
          <h2 id="wf-def-h">Steps</h2>
          <${StepGraph} graph=${wf.graph} label=${`Steps of ${wf.name}`} />
          <details>
            <summary>The steps as JSON</summary>
            <${Json} value=${wf.steps} />
          </details>
        </section>
        <section aria-labelledby="wf-versions-h">
          <h2 id="wf-versions-h">Versions</h2>
          <${Versions} workflowId=${wf.id} name=${wf.name} />
        </section>`
    }
  `;
}
