// Start a run of a workflow with an input edited as JSON (like Inngest's "invoke"): the form
// starts from the latest run's input, or from the fields the steps read, each null. The input is
// checked as you type: a JSON object, and the trigger.payload fields the steps read present
// (a missing one is only a warning: a step may not need it on every path).
import { ActionButton, href, html, navigate, noSubmit, post, useState } from '../lib.js';
import { JsonEditor, parseObject } from './json-editor.js';

/** @param {{ wf: import('../lib.js').WorkflowDetail, lastInput?: unknown }} props */
export function StartRun({ wf, lastInput }) {
  const fields = wf.input_fields;
  const [text, setText] = useState(() =>
    JSON.stringify(lastInput ?? Object.fromEntries(fields.map((field) => [field, null])), null, 2),
  );
  const checked = checkInput(text, fields);
  const active = wf.status === 'active' || wf.status === 'draft';
  return html`<form class="drive" onSubmit=${noSubmit}>
    <${JsonEditor}
      label="Input (becomes trigger.payload)"
      text=${text}
      onText=${setText}
      checked=${checked}
    />
    ${
      fields.length > 0 &&
      html`<p class="muted">
        ${`The steps read: ${fields.map((field) => `trigger.payload.${field}`).join(', ')}.`}
      </p>`
    }
    ${
      active
        ? html`<${ActionButton}
            action=${() => {
              if (checked.error) throw new Error(checked.error);
              return post('/workflows/:workflow_id/run', {
                params: { workflow_id: wf.id },
                body: { input: checked.value },
              });
            }}
            onDone=${(
              /** @type {import('../lib.js').PostAnswer<'/workflows/:workflow_id/run'>} */ started,
            ) => navigate(href(`/runs/${started.execution_id}`))}
            >Start a run with this input<//
          >`
        : html`<p class="muted">
            ${`The workflow is ${wf.status}: only draft and active workflows run.`}
          </p>`
    }
  </form>`;
}

/**
 * The text as a JSON object, with a warning for each field the steps read that it lacks.
 * @param {string} text
 * @param {string[]} fields
 */
export function checkInput(text, fields) {
  const parsed = parseObject(text, 'The input');
  if (parsed.error) return parsed;
  const missing = fields.filter((field) => !(field in parsed.value));
  if (missing.length === 0) return parsed;
  return {
    ...parsed,
    warning: `Valid JSON, but the steps read ${missing.map((field) => `trigger.payload.${field}`).join(', ')}, which ${missing.length === 1 ? 'is' : 'are'} not in it.`,
  };
}
