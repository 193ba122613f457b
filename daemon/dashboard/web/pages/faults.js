// The workspace's sandbox fault rules: each rule's where, when and what, how often it was asked
// and hit; add one with the options of `svc faults add` (each field names its flag, as the
// daemon's refusals do); clear them all, after a confirmation.
import { parseDuration } from '../shared/duration.js';
import {
  ActionButton,
  ErrorNote,
  Loading,
  get,
  html,
  noSubmit,
  onValue,
  post,
  time,
  useLoad,
  useState,
} from '../lib.js';
import { TableHead } from '../parts/table-head.js';

/**
 * A rule as the daemon shows it, and the body that adds one.
 * @typedef {import('../lib.js').GetAnswer<'/faults'>['data'][number]} FaultRule
 * @typedef {NonNullable<import('../lib.js').PostArgs<'/faults'>['body']>} FaultBody
 */

const WHERE = [
  ['webhook_id', 'Deliveries of a webhook (--webhook)', 'hook_...'],
  ['url_prefix', 'Calls to a URL prefix (--url-prefix)', 'http://127.0.0.1:4000/'],
  ['workflow_id', 'A step of a workflow (--workflow, --step)', 'wfl_...'],
  ['agent_id', 'Executions of an agent (--agent)', 'agt_...'],
];
const WHAT = [
  ['status', 'Answer with an HTTP status (--status)'],
  ['timeout', 'No answer in time (--timeout)'],
  ['reset', 'Reset the connection (--reset)'],
  ['fail', 'Fail with an error code (--fail)'],
  ['latency', 'Only delay the call (--latency)'],
];

export function Faults() {
  const faults = useLoad(() => get('/faults'), []);
  const rules = faults.data?.data;
  return html`
    <h1>Fault rules</h1>
    <p class="hint">
      Sandbox only: make deliveries, steps and agents fail on purpose, as${' '}
      <code>svc faults add</code> does.
    </p>
    <${ErrorNote} error=${faults.error} />
    ${!faults.data && !faults.error && html`<${Loading} what="the fault rules" />`}
    ${faults.data && html`<${AddFault} onAdded=${faults.reload} />`}
    ${rules && html`<${FaultTable} rules=${rules} />`}
    ${
      rules &&
      rules.length > 0 &&
      html`<p>
        <${ActionButton}
          kind="danger"
          confirm=${`Remove all ${rules.length} fault rule(s) of this workspace?`}
          yes="Yes, clear them"
          action=${() => post('/faults/clear')}
          onDone=${faults.reload}
          >Clear all rules<//
        >
      </p>`
    }
  `;
}

/**
 * "2" or "1-2" as the rule's attempts_from/attempts_to; the daemon checks the range.
 * @param {string} text
 */
function attemptsOf(text) {
  const found = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(text);
  if (!found) throw new Error(`Attempts (--attempts) takes N or FROM-TO, e.g. 1-2; got "${text}".`);
  const from = Number(found[1]);
  return { attempts_from: from, attempts_to: found[2] === undefined ? from : Number(found[2]) };
}

/**
 * @param {string} text
 * @param {string} label
 */
function numberOf(text, label) {
  const value = Number(text);
  if (!Number.isFinite(value)) throw new Error(`${label} takes a number; got "${text}".`);
  return value;
}

/**
 * The form's fields as the body of POST /ui/api/faults (the control procedure's input): only
 * the fields filled in, so the daemon's checks say what is missing or wrong.
 * @param {FaultForm} form
 * @returns {FaultBody}
 */
export function ruleOf(form) {
  /** @type {Record<string, unknown>} */
  const rule = {};
  /** @param {keyof FaultForm} name */
  const text = (name) => form[name].trim();
  // An empty field is left out: the daemon then says which option is missing.
  if (text('target')) rule[form.where] = text('target');
  if (form.where === 'workflow_id' && text('step')) rule.step_id = text('step');
  if (text('attempts')) Object.assign(rule, attemptsOf(text('attempts')));
  if (text('rate')) rule.rate = numberOf(text('rate'), 'Rate (--rate)');
  if (text('seed')) rule.seed = numberOf(text('seed'), 'Seed (--seed)');
  if (text('times')) rule.times = numberOf(text('times'), 'Times (--times)');
  if (form.match !== '') rule.match = form.match;
  if (form.what === 'status') rule.status = numberOf(text('status'), 'Status (--status)');
  if (form.what === 'timeout') rule.timeout = true;
  if (form.what === 'reset') rule.reset = true;
  if (form.what === 'fail') rule.fail = text('fail');
  if (text('latency')) {
    const ms = parseDuration(text('latency'));
    if (ms === null) {
      throw new Error(
        `Latency (--latency) takes a duration such as 500ms, 2s or 1m; got "${text('latency')}".`,
      );
    }
    rule.latency_ms = ms;
  }
  return /** @type {FaultBody} */ (rule);
}

/** @typedef {typeof EMPTY} FaultForm The add form's fields, each as typed. */
const EMPTY = {
  where: 'webhook_id',
  target: '',
  step: '',
  attempts: '',
  rate: '',
  seed: '',
  times: '',
  match: '',
  what: 'status',
  status: '503',
  fail: '',
  latency: '',
};

/** @param {{ onAdded: () => void }} props */
function AddFault({ onAdded }) {
  const [form, setForm] = useState(EMPTY);
  /** @param {keyof FaultForm} name */
  const set = (name) => onValue((value) => setForm({ ...form, [name]: value }));
  /**
   * @param {keyof FaultForm} name
   * @param {string} label
   * @param {Record<string, string>} [attrs]
   */
  const field = (name, label, attrs = {}) =>
    html`<label class="field"
      >${label}${' '}<input value=${form[name]} onInput=${set(name)} ...${attrs}
    /></label>`;
  const where = WHERE.find(([key]) => key === form.where) ?? WHERE[0];
  return html`<form class="drive fault-form" onSubmit=${noSubmit}>
    <h2>Add a rule</h2>
    <fieldset>
      <legend>Where</legend>
      <label class="field"
        >Target${' '}
        <select value=${form.where} onChange=${set('where')}>
          ${WHERE.map(([key, label]) => html`<option value=${key}>${label}</option>`)}
        </select>
      </label>
      ${field('target', where[1].replace(/ \(.*/, ''), { placeholder: where[2] })}
      ${form.where === 'workflow_id' && field('step', 'Step id (--step)')}
    </fieldset>
    <fieldset>
      <legend>When (all optional)</legend>
      ${field('attempts', 'Attempts (--attempts)', { placeholder: '1-2' })}
      ${field('rate', 'Rate, 0 to 1 (--rate)', { placeholder: '0.3' })}
      ${field('seed', 'Seed (--seed)', { placeholder: '0' })} ${field('times', 'Times (--times)')}
      ${field('match', 'Match, text or /regex/ (--match)')}
    </fieldset>
    <fieldset>
      <legend>What</legend>
      <label class="field"
        >Fault${' '}
        <select value=${form.what} onChange=${set('what')}>
          ${WHAT.map(([key, label]) => html`<option value=${key}>${label}</option>`)}
        </select>
      </label>
      ${form.what === 'status' && field('status', 'HTTP status (--status)')}
      ${form.what === 'fail' && field('fail', 'Error code (--fail)', { placeholder: 'external_api_error' })}
      ${form.what !== 'fail' && field('latency', 'Latency (--latency)', { placeholder: '2s' })}
    </fieldset>
    <${ActionButton}
      kind="primary"
      action=${async () => post('/faults', { body: ruleOf(form) })}
      onDone=${() => {
        setForm(EMPTY);
        onAdded();
      }}
      >Add the rule<//
    >
  </form>`;
}

/** @param {FaultRule} rule */
function whereOf(rule) {
  const where = rule.where;
  if (where.webhook_id) return html`deliveries of <code>${where.webhook_id}</code>`;
  if (where.url_prefix) return html`calls to <code>${where.url_prefix}*</code>`;
  if (where.workflow_id) {
    return html`step <code>${where.step_id}</code> of <code>${where.workflow_id}</code>`;
  }
  return html`executions of <code>${where.agent_id}</code>`;
}

/** @param {FaultRule} rule */
function whenOf(rule) {
  const when = rule.when;
  const parts = [];
  if (when.attempts) {
    const { from, to } = when.attempts;
    parts.push(from === to ? `attempt ${from}` : `attempts ${from}-${to}`);
  }
  if (when.rate !== null) parts.push(`${when.rate * 100}% (seed ${when.seed})`);
  if (when.match) parts.push(`matching ${when.match}`);
  if (when.times !== null) parts.push(`${when.times} time(s)`);
  return parts.length ? parts.join(', ') : 'every call';
}

/** @param {FaultRule} rule */
function whatOf(rule) {
  const what = rule.what;
  const parts = [];
  if (what.latency_ms !== null) parts.push(`+${what.latency_ms} ms`);
  if (what.status !== null) parts.push(`HTTP ${what.status}`);
  if (what.timeout) parts.push('timeout');
  if (what.reset) parts.push('connection reset');
  if (what.fail) parts.push(`fail ${what.fail}`);
  return parts.join(' then ');
}

/** @param {{ rules: FaultRule[] }} props */
function FaultTable({ rules }) {
  if (rules.length === 0) {
    return html`<p class="empty">No fault rules in this workspace: every call goes through.</p>`;
  }
  return html`<div class="table-scroll">
    <table class="list" aria-label="Fault rules">
      <${TableHead} labels=${['Rule', 'Where', 'When', 'What', 'Seen', 'Hits', 'State', 'Added']} />
      <tbody>
        ${rules.map(
          (rule) =>
            html`<tr data-fault=${rule.id}>
              <td><code>${rule.id}</code></td>
              <td>${whereOf(rule)}</td>
              <td>${whenOf(rule)}</td>
              <td>${whatOf(rule)}</td>
              <td>${rule.seen}</td>
              <td>${rule.hits}</td>
              <td>${rule.retired ? 'retired' : 'active'}</td>
              <td>${time(rule.created_at)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}
