// One run: where it is on its workflow's step graph, then its steps on a timeline, one lane per
// parallel branch, each attempt with its start, end and duration, waits with the time they end on
// the sandbox clock, the branch a condition took, and the step's configuration, result and
// error. Updates live while the run goes on.
import {
  ActionButton,
  ErrorNote,
  Json,
  Loading,
  Link,
  Status,
  duration,
  get,
  href,
  html,
  navigate,
  post,
  time,
  useLoad,
} from '../lib.js';
import { CopiedSteps, Lineage } from '../parts/lineage.js';
import { RunApprovals } from '../parts/run-approvals.js';
import { StepGraph, runStates } from '../parts/step-graph.js';
import { EventHistory } from '../parts/event-history.js';

const UNFINISHED = new Set(['running', 'awaiting_approval']);

/** @param {import('../lib.js').PageProps} props */
export function Run({ params }) {
  const { data, error, reload } = useLoad(
    () => get('/runs/:execution_id', { params: { execution_id: params.id } }),
    [params.id],
    (type, message) =>
      (type === 'run' && message.execution_id === params.id) ||
      (type === 'event' && message.data?.execution_id === params.id) ||
      type === 'clock',
  );
  if (error && !data)
    return html`<h1>Run</h1>
      <${ErrorNote} error=${error} />`;
  if (!data)
    return html`<h1>Run <code>${params.id}</code></h1>
      <${Loading} what="the run" />`;
  const run = data.execution;
  return html`
    <p class="crumbs">
      <${Link} to=${href('/runs')}>Workflow runs<//>${' / '}
      <${Link} to=${href(`/workflows/${run.workflow_id}`)}>${run.workflow_name}<//>
    </p>
    <h1>Run <code>${run.execution_id}</code></h1>
    <div class="run-head">
      <${Status} value=${run.status} />
      <span>${run.steps_completed} of ${run.steps_total} steps completed</span>
      <span class="muted">started ${time(run.created_at)}</span>
      ${run.duration_seconds !== null && html`<span class="muted">took ${duration(run.elapsed_ms ?? run.duration_seconds * 1000)}</span>`}
      <span class="spacer"></span>
      ${
        UNFINISHED.has(run.status) &&
        html`<${ActionButton}
          kind="danger"
          confirm=${`Cancel run ${run.execution_id}? A cancelled run cannot be resumed.`}
          yes="Yes, cancel the run"
          action=${() => post('/runs/:execution_id/cancel', { params: { execution_id: run.execution_id } })}
          onDone=${reload}
          >Cancel run<//
        >`
      }
      <${ActionButton}
        action=${() => post('/runs/:execution_id/run-again', { params: { execution_id: run.execution_id } })}
        onDone=${(/** @type {{ execution_id: string }} */ started) =>
          navigate(href(`/runs/${started.execution_id}`))}
        >Run again with the same input<//
      >
    </div>
    <${Lineage} run=${run} />
    <${ErrorNote} error=${error} />
    ${
      run.error &&
      html`<p class="error-note" role="alert">
        <strong>${run.error.code}</strong>: ${run.error.message}
      </p>`
    }
    <${RunApprovals} pending=${data.pending} onDecided=${reload} />
    <section aria-labelledby="where-h">
      <h2 id="where-h">Where the run is</h2>
      <${StepGraph}
        graph=${data.graph}
        states=${runStates(run, data.graph, data.copied_steps)}
        label=${`Steps of run ${run.execution_id}`}
      />
    </section>
    <section aria-labelledby="timeline-h">
      <h2 id="timeline-h">Timeline</h2>
      <${CopiedSteps}
        entries=${run.step_results.slice(0, data.copied_steps)}
        from=${run.rerun_of}
      />
      <${Timeline} data=${data} />
    </section>
    <div class="columns">
      <section aria-labelledby="input-h">
        <h2 id="input-h">Input</h2>
        <${Json} value=${run.input} />
      </section>
      <section aria-labelledby="result-h">
        <h2 id="result-h">Result</h2>
        <${Json} value=${run.result} />
      </section>
    </div>
    <section aria-labelledby="history-h">
      <h2 id="history-h">Event history</h2>
      <${EventHistory} runId=${run.execution_id} />
    </section>
  `;
}

/**
 * A condition step's result: the branch it took and the step that follows (a step's result is
 * any JSON in the API's schema; a condition's has this shape).
 * @param {{ result?: unknown }} entry
 * @returns {{ branch?: string, next_step_id?: string | null } | null}
 */
function conditionResult(entry) {
  return /** @type {{ branch?: string, next_step_id?: string | null } | null} */ (
    entry.result ?? null
  );
}

/** @param {{ data: import('../lib.js').RunDetail }} props */
function Timeline({ data }) {
  const run = data.execution;
  const definitions = new Map(data.steps.map((step) => [step.id, step]));
  const waits = new Map(data.pending.map((act) => [`${act.step_id}#${act.attempt}`, act]));
  const start = Date.parse(run.created_at);
  // Copied steps ran in the original run: only this run's own are placed on its time axis.
  const entries = run.step_results.slice(data.copied_steps);
  const end = Math.max(
    start + 1,
    ...entries.map((entry) => Date.parse(entry.completed_at ?? entry.started_at)),
    ...data.pending.map((act) => (act.wake_at ? Date.parse(act.wake_at) : 0)),
  );
  const span = end - start;
  /** @param {string} iso */
  const position = (iso) => Math.min(100, Math.max(0, ((Date.parse(iso) - start) / span) * 100));
  return html`<div class="lanes">
    ${data.lanes
      .filter(
        (lane) =>
          lane.key === 'main' || entries.some((entry) => lane.step_ids.includes(entry.step_id)),
      )
      .map(
        (lane) =>
          html`<section class="lane" aria-label=${`Lane: ${lane.label}`}>
            <h3>${lane.label}</h3>
            <ol class="steps">
              ${entries
                .filter((entry) => lane.step_ids.includes(entry.step_id))
                .map((entry) => {
                  const def = definitions.get(entry.step_id);
                  const pending = waits.get(`${entry.step_id}#${entry.attempt}`);
                  const left = position(entry.started_at);
                  const right = entry.completed_at
                    ? position(entry.completed_at)
                    : pending?.wake_at
                      ? position(pending.wake_at)
                      : 100;
                  return html`<li
                    class="step"
                    data-step=${entry.step_id}
                    data-status=${entry.status}
                  >
                    <div class="step-line">
                      <strong>${entry.step_name}</strong>
                      <span class="muted">${entry.type}</span>
                      <${Status} value=${entry.status} />
                      ${entry.attempt > 1 && html`<span class="badge">attempt ${entry.attempt}</span>`}
                      ${
                        entry.type === 'condition' &&
                        conditionResult(entry)?.branch &&
                        html`<span class="badge branch"
                          >${`took ${conditionResult(entry)?.branch?.replace('_', ' ')}`}${conditionResult(entry)?.next_step_id ? ` → ${conditionResult(entry)?.next_step_id}` : ''}</span
                        >`
                      }
                    </div>
                    <div class="bar" aria-hidden="true">
                      <span
                        class=${`fill status-${entry.status}`}
                        style=${{ marginLeft: `${left}%`, width: `${Math.max(0.8, right - left)}%` }}
                      ></span>
                    </div>
                    <p class="times">
                      started ${time(entry.started_at)} ·${' '}
                      ${entry.completed_at ? html`ended ${time(entry.completed_at)} · ${duration(entry.elapsed_ms ?? entry.duration_ms)}` : 'not ended'}
                      ${pending?.wake_at && html` · <span class="due">${pending.state === 'retrying' ? 'retries' : 'wakes'} at ${time(pending.wake_at)} (sandbox clock)</span>`}
                      ${pending?.state === 'awaiting_approval' && html` · <${Link} to=${href('/approvals')}>waits for a decision on Approvals<//>`}
                    </p>
                    <div class="buttons">
                      <${ActionButton}
                        kind="secondary"
                        label=${`Re-run from here: step ${entry.step_id}`}
                        action=${() =>
                          post('/runs/:execution_id/rerun', {
                            params: { execution_id: run.execution_id },
                            body: { from_step_id: entry.step_id },
                          })}
                        onDone=${(/** @type {{ execution_id: string }} */ started) =>
                          navigate(href(`/runs/${started.execution_id}`))}
                        >Re-run from here<//
                      >
                    </div>
                    <details>
                      <summary>Configuration, result and error</summary>
                      <div class="columns">
                        <div>
                          <h4>Configuration (input)</h4>
                          <${Json} value=${def?.config ?? null} />
                        </div>
                        <div>
                          <h4>Result</h4>
                          <${Json} value=${entry.result} />
                        </div>
                      </div>
                      ${entry.error && html`<p class="error-note"><strong>${entry.error.code}</strong>: ${entry.error.message}</p>`}
                    </details>
                  </li>`;
                })}
            </ol>
          </section>`,
      )}
  </div>`;
}
