// The workflow templates (what `svc workflows templates` lists and `svc workflows init` starts
// from): each one's industry, steps, trigger and roles; a template's page with its steps drawn
// as a graph and a form that creates a workflow from it, asking what `svc workflows init` asks:
// a name, the values the template leaves to you, an agent for each role.
import {
  ActionButton,
  ErrorNote,
  Link,
  Loading,
  get,
  href,
  html,
  navigate,
  noSubmit,
  onValue,
  post,
  useLoad,
  useState,
} from '../lib.js';
import { StepGraph } from '../parts/step-graph.js';
import { TableHead } from '../parts/table-head.js';

/**
 * A template of the catalogue, and an agent a role may be given.
 * @typedef {import('../lib.js').GetAnswer<'/templates'>} TemplatesAnswer
 * @typedef {TemplatesAnswer['data'][number]} Template
 * @typedef {Template['roles'][number]} Role
 * @typedef {TemplatesAnswer['agents'][number]} AgentChoice
 */

/** @param {import('../lib.js').PageProps} props */
export function Templates({ params }) {
  const templates = useLoad(() => get('/templates'), []);
  const chosen = templates.data?.data.find((template) => template.id === params.id);
  return html`
    ${params.id && html`<p class="crumbs"><${Link} to=${href('/templates')}>Templates<//></p>`}
    <h1>${chosen ? `Template ${chosen.name}` : 'Workflow templates'}</h1>
    <${ErrorNote} error=${templates.error} />
    ${!templates.data && !templates.error && html`<${Loading} what="the templates" />`}
    ${
      templates.data &&
      params.id &&
      !chosen &&
      html`<p class="error-note" role="alert">
        ${`No workflow template ${params.id}. Pick one below.`}
      </p>`
    }
    ${
      chosen &&
      html`<${TemplateDetail}
        key=${chosen.id}
        template=${chosen}
        agents=${templates.data?.agents ?? []}
      />`
    }
    ${templates.data && !chosen && html`<${TemplateTable} templates=${templates.data.data} />`}
  `;
}

/** @param {{ templates: Template[] }} props */
function TemplateTable({ templates }) {
  return html`<div class="table-scroll">
    <table class="list" aria-label="Workflow templates">
      <${TableHead} labels=${['Template', 'Industry', 'Steps', 'Trigger', 'Roles']} />
      <tbody>
        ${templates.map(
          (template) =>
            html`<tr data-template=${template.id}>
              <td>
                <${Link} to=${href(`/templates/${template.id}`)}>${template.name}<//>
                <div class="muted">${template.description}</div>
              </td>
              <td>${template.industry}</td>
              <td>${template.steps_count}</td>
              <td>${template.trigger.type}</td>
              <td>${template.roles.map((role) => role.name).join(', ')}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/** @param {{ template: Template, agents: AgentChoice[] }} props */
function TemplateDetail({ template, agents }) {
  return html`<p>${template.description}</p>
    <p class="muted">
      ${`${template.id} · ${template.industry} · ${template.steps_count} steps · trigger ${template.trigger.type}`}
    </p>
    <section aria-labelledby="tmpl-steps-h">
      <h2 id="tmpl-steps-h">Steps</h2>
      <${StepGraph} graph=${template.graph} label=${`Steps of template ${template.name}`} />
    </section>
    <section aria-labelledby="tmpl-create-h">
      <h2 id="tmpl-create-h">Create a workflow from it</h2>
      <${CreateFromTemplate} template=${template} agents=${agents} />
    </section>`;
}

/**
 * The agents fitting a role first (its type), then the others, as the CLI's prompt lists them.
 * @param {Role} role
 * @param {AgentChoice[]} agents
 */
function choicesFor(role, agents) {
  return [...agents].sort(
    (a, b) => Number(b.type === role.agent_type) - Number(a.type === role.agent_type),
  );
}

/** @param {{ template: Template, agents: AgentChoice[] }} props */
function CreateFromTemplate({ template, agents }) {
  const [name, setName] = useState(template.name);
  const [status, setStatus] = useState(/** @type {'draft' | 'active'} */ ('draft'));
  const [values, setValues] = useState(/** @type {Record<string, string>} */ ({}));
  const [chosen, setChosen] = useState(() =>
    Object.fromEntries(
      template.roles.map((role) => [role.name, choicesFor(role, agents)[0]?.id ?? '']),
    ),
  );
  return html`<form class="drive" onSubmit=${noSubmit}>
    <label class="field"
      >Workflow name${' '}
      <input value=${name} onInput=${onValue(setName)} />
    </label>
    ${template.placeholders.map(
      (placeholder) =>
        html`<label class="field"
          >${`${placeholder.description} (${placeholder.path})`}${' '}
          <input
            value=${values[placeholder.path] ?? ''}
            placeholder=${`e.g. ${placeholder.example}`}
            onInput=${onValue((value) => setValues({ ...values, [placeholder.path]: value }))}
          />
        </label>`,
    )}
    ${template.roles.map(
      (role) =>
        html`<label class="field"
          >${`Agent for role ${role.name} (${role.agent_type}: ${role.description})`}${' '}
          <select
            value=${chosen[role.name]}
            onChange=${onValue((value) => setChosen({ ...chosen, [role.name]: value }))}
          >
            <option value="">— pick an agent —</option>
            ${choicesFor(role, agents).map(
              (agent) =>
                html`<option value=${agent.id}>
                  ${`${agent.name} (${agent.id}, ${agent.type}, ${agent.status})`}
                </option>`,
            )}
          </select>
        </label>`,
    )}
    ${
      agents.length === 0 &&
      html`<p class="hint">
        ${'This workspace has no agent yet: create one per role first ('}<code
          >svc agents create</code
        >${', or '}<code>${`svc workflows init --template ${template.id} --create-agents`}</code>${').'}
      </p>`
    }
    <label class="field"
      >Workflow status${' '}
      <select
        value=${status}
        onChange=${onValue((value) => setStatus(/** @type {'draft' | 'active'} */ (value)))}
      >
        <option value="draft">draft (start it by hand later)</option>
        <option value="active">active</option>
      </select>
    </label>
    <${ActionButton}
      action=${() =>
        post('/templates/:template_id/workflows', {
          params: { template_id: template.id },
          body: {
            name,
            status,
            values,
            agents: Object.fromEntries(Object.entries(chosen).filter(([, id]) => id)),
          },
        })}
      onDone=${(
        /** @type {import('../lib.js').PostAnswer<'/templates/:template_id/workflows'>} */ workflow,
      ) => navigate(href(`/workflows/${workflow.id}`))}
      >Create the workflow<//
    >
  </form>`;
}
