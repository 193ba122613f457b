// A list table's head: one column header per label.
import { html } from '../lib.js';

export function TableHead({ labels }) {
  return html`<thead>
    <tr>
      ${labels.map((label) => html`<th scope="col">${label}</th>`)}
    </tr>
  </thead>`;
}
