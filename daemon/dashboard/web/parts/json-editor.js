// A JSON editor for the forms that drive the sandbox: a textarea checked as you type. `check`
// turns the text into { value } or { error } (the form cannot be sent), with an optional
// `warning` (it can). The outcome is announced next to the field and tied to it for screen readers.
import { html, onValue, useId } from '../lib.js';

/**
 * The text as a JSON object, or why it is not one.
 * @param {string} text
 * @param {string} what
 */
export function parseObject(text, what) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `Not valid JSON: ${/** @type {Error} */ (error).message}.` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { error: `${what} must be a JSON object: { ... }.` };
  }
  return { value };
}

/**
 * `checked`: what `check` made of the text (an error, a warning, or neither).
 * @param {{ label: string, text: string, onText: (text: string) => void, checked: { error?: string, warning?: string }, rows?: number }} props
 */
export function JsonEditor({ label, text, onText, checked, rows = 10 }) {
  const id = useId();
  const state = checked.error ? 'error' : checked.warning ? 'warning' : 'ok';
  return html`<div class="json-editor">
    <label for=${`${id}-text`}>${label}</label>
    <textarea
      id=${`${id}-text`}
      rows=${rows}
      spellcheck="false"
      aria-invalid=${checked.error ? 'true' : 'false'}
      aria-describedby=${`${id}-check`}
      value=${text}
      onInput=${onValue(onText)}
    ></textarea>
    <p id=${`${id}-check`} class=${`check check-${state}`} aria-live="polite">
      ${checked.error ?? checked.warning ?? 'Valid JSON.'}
    </p>
  </div>`;
}
