// A table of workflow runs (the runs list, a workflow's page): each links to its run's page.
import { Link, Loading, Status, duration, href, html, time } from '../lib.js';
import { TableHead } from './table-head.js';

/**
 * `runs` is a useLoad() of a runs page; `names` maps workflow ids to names when known.
 * @param {{ runs: import('../lib.js').Loaded<import('../lib.js').GetAnswer<'/runs'>>, label: string, names?: Map<string, string>, empty?: string }} props
 */
export function RunTable({ runs, label, names = new Map(), empty = 'No runs yet.' }) {
  if (!runs.data && !runs.error) return html`<${Loading} what="runs" />`;
  return html`<div class="table-scroll">
    <table class="list" aria-label=${label} aria-busy=${runs.loading ? 'true' : 'false'}>
      <${TableHead}
        labels=${['Run', 'Workflow', 'Status', 'Steps', 'Started', 'Duration', 'Trigger']}
      />
      <tbody>
        ${(runs.data?.data ?? []).map(
          (run) =>
            html`<tr data-run=${run.execution_id}>
              <td>
                <${Link} to=${href(`/runs/${run.execution_id}`)}
                  ><code>${run.execution_id}</code><//
                >
              </td>
              <td>${run.workflow_name ?? names.get(run.workflow_id) ?? run.workflow_id}</td>
              <td><${Status} value=${run.status} /></td>
              <td>${run.steps_completed} / ${run.steps_total}</td>
              <td>${time(run.created_at)}</td>
              <td>
                ${run.duration_seconds === null ? '—' : duration(run.elapsed_ms ?? run.duration_seconds * 1000)}
              </td>
              <td>${run.trigger.type}</td>
            </tr>`,
        )}
        ${
          runs.data &&
          runs.data.data.length === 0 &&
          html`<tr>
            <td colspan="7" class="empty">${empty}</td>
          </tr>`
        }
      </tbody>
    </table>
  </div>`;
}
