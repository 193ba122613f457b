// A workflow's versions, newest first: when each was made, what it changed from the one before,
// and its steps as a graph on demand. Runs keep the version they began with.
import { ErrorNote, Loading, get, html, time, useLoad } from '../lib.js';
import { StepGraph } from './step-graph.js';

/** @param {{ workflowId: string, name: string }} props */
export function Versions({ workflowId, name }) {
  const versions = useLoad(
    () => get('/workflows/:workflow_id/versions', { params: { workflow_id: workflowId } }),
    [workflowId],
    (type, message) => type === 'event' && message.data?.id === workflowId,
  );
  if (versions.error) return html`<${ErrorNote} error=${versions.error} />`;
  if (!versions.data) return html`<${Loading} what="the versions" />`;
  const [current] = versions.data.data;
  return html`<ol class="versions" aria-label=${`Versions of ${name}`}>
      ${versions.data.data.map(
        (version) =>
          html`<li data-version=${version.version}>
            <p>
              <strong>${`Version ${version.version}`}</strong>
              ${version === current && html`${' '}<span class="badge">current</span>`} ${' '}<span
                class="muted"
                >${`${time(version.created_at)} · ${version.step_count} steps`}</span
              >
            </p>
            <p class="changes">${version.changes.join('; ')}</p>
            ${
              version !== current &&
              html`<details>
                <summary>${`Steps of version ${version.version}`}</summary>
                <${StepGraph}
                  graph=${version.graph}
                  label=${`Steps of ${name}, version ${version.version}`}
                />
              </details>`
            }
          </li>`,
      )}
    </ol>
    ${versions.data.has_more && html`<p class="muted">Older versions are not shown.</p>`}`;
}
