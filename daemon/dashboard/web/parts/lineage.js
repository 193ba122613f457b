// Re-runs read as re-runs: which run this one re-runs (and from which step), its own re-runs,
// both ways as links; and the steps a re-run from a step copied from the original, listed apart
// from its timeline (they ran in the original run, at the original's times).
import { Json, Link, Status, href, html, time } from '../lib.js';

/** @param {{ run: import('../lib.js').Run }} props */
export function Lineage({ run }) {
  if (!run.rerun_of && run.reruns.length === 0) return null;
  return html`<nav class="lineage" aria-label="Re-runs">
    ${
      run.rerun_of &&
      html`<p data-rerun-of=${run.rerun_of}>
        ${'Re-run of '}
        <${Link} to=${href(`/runs/${run.rerun_of}`)}><code>${run.rerun_of}</code><//>
        ${run.from_step_id ? html`${' from step '}<code>${run.from_step_id}</code>` : ' (whole run)'}
      </p>`
    }
    ${
      run.reruns.length > 0 &&
      html`<p>
        ${`Re-run ${run.reruns.length === 1 ? 'once' : `${run.reruns.length} times`}: `}
        ${run.reruns.map(
          (id, index) =>
            html`${index > 0 ? ', ' : ''}<${Link} to=${href(`/runs/${id}`)} data-rerun=${id}
                ><code>${id}</code><//
              >`,
        )}
      </p>`
    }
  </nav>`;
}

/** The step results a re-run from a step took over from the original run: no time axis. */
/** @param {{ entries: import('../lib.js').Run['step_results'], from: string }} props */
export function CopiedSteps({ entries, from }) {
  if (entries.length === 0) return null;
  return html`<section class="lane copied" aria-labelledby="copied-h">
    <h3 id="copied-h">
      ${'Copied from '}<${Link} to=${href(`/runs/${from}`)}><code>${from}</code><//>
      ${' (not run again: their results as the original run left them)'}
    </h3>
    <ol class="steps">
      ${entries.map(
        (entry) =>
          html`<li
            class="step"
            data-step=${entry.step_id}
            data-status=${entry.status}
            data-copied-from=${from}
          >
            <div class="step-line">
              <strong>${entry.step_name}</strong>${' '}
              <span class="muted">${entry.type}</span>${' '}
              <${Status} value=${entry.status} />${' '}
              <span class="badge copied-badge">copied</span>
            </div>
            <p class="times">${`ran in ${from} at ${time(entry.started_at)}`}</p>
            <details>
              <summary>Result</summary>
              <${Json} value=${entry.result} />
            </details>
          </li>`,
      )}
    </ol>
  </section>`;
}
