// Trigger a webhook-triggered workflow with a body edited as JSON, signed for you: the daemon
// signs it with the trigger's stored secret and sends it through the hook's own route, as
// `svc workflows trigger` does, so the hook's checks apply (body limit, JSON, signature, status,
// rate limit). The page then links to the run it started.
import { ActionButton, Link, href, html, noSubmit, postText, useState } from '../lib.js';
import { JsonEditor } from './json-editor.js';
import { checkInput } from './start-run.js';

/** @param {{ wf: import('../lib.js').WorkflowDetail, lastInput?: unknown }} props */
export function TriggerHook({ wf, lastInput }) {
  const fields = wf.input_fields;
  const [text, setText] = useState(() =>
    JSON.stringify(lastInput ?? Object.fromEntries(fields.map((field) => [field, null])), null, 2),
  );
  const [started, setStarted] = useState(
    /** @type {import('../lib.js').PostAnswer<'/workflows/:workflow_id/trigger'> | null} */ (null),
  );
  const checked = checkBody(text, fields);
  const how = wf.hook?.signed ? 'a signed POST' : 'a POST';
  return html`<h3>Trigger the hook from here</h3>
    <form class="drive" onSubmit=${noSubmit}>
      <${JsonEditor}
        label="Hook body (sent as is; becomes trigger.payload)"
        text=${text}
        onText=${setText}
        checked=${checked}
        rows=${8}
      />
      <p class="muted">
        ${
          wf.hook?.signed
            ? 'The daemon signs the body with the trigger secret (X-Svc-Signature) and posts it to the hook URL above.'
            : 'The body is posted to the hook URL above (the trigger has no secret: no signature).'
        }
      </p>
      ${
        wf.status === 'active'
          ? html`<${ActionButton}
              kind="primary"
              action=${() => {
                if (checked.error) throw new Error(checked.error);
                return postText('/workflows/:workflow_id/trigger', { workflow_id: wf.id }, text);
              }}
              onDone=${setStarted}
              >Trigger<//
            >`
          : html`<p class="muted">
              ${`The workflow is ${wf.status}: its hook starts runs only once it is active (svc workflows activate ${wf.id}).`}
            </p>`
      }
      ${
        started &&
        html`<p role="status" class="sent" data-run=${started.execution_id}>
          Started run${' '}
          <${Link} to=${href(`/runs/${started.execution_id}`)}
            ><code>${started.execution_id}</code><//
          >${` by ${how} to hook ${started.path}.`}
        </p>`
      }
    </form>`;
}

/**
 * Any JSON is a body (as with svc workflows trigger --data); an object is checked for fields.
 * @param {string} text
 * @param {string[]} fields
 */
function checkBody(text, fields) {
  try {
    JSON.parse(text);
  } catch (error) {
    return { error: `Not valid JSON: ${/** @type {Error} */ (error).message}.` };
  }
  const checked = checkInput(text, fields);
  if (!checked.error) return checked;
  return {
    value: JSON.parse(text),
    warning:
      'Valid JSON, but not an object: the run gets it as trigger.payload, its input is { "payload": ... }.',
  };
}
