// A list table's head: one column header per label; ACTIONS_COLUMN heads a column of row buttons.
import { html } from '../lib.js';

/** The label of a column of row buttons: named for screen readers, not shown. */
export const ACTIONS_COLUMN = Symbol('actions column');

/** @param {{ labels: (string | typeof ACTIONS_COLUMN)[] }} props */
export function TableHead({ labels }) {
  return html`<thead>
    <tr>
      ${labels.map(
        (label) =>
          html`<th scope="col">
            ${label === ACTIONS_COLUMN ? html`<span class="visually-hidden">Actions</span>` : label}
          </th>`,
      )}
    </tr>
  </thead>`;
}
