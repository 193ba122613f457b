// Reads the workflow templates from templates/ (one YAML or JSON file each) and checks their
// shape, once per process, when a template is first asked for (TemplateService): not at start,
// where their YAML was a tenth of a daemon start's CPU. The shipped files are checked by
// test/unit/templates.test.ts, so a broken one fails the tests, not a user's request.
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { PACKAGE_ROOT } from '../../shared/package-info.js';
import {
  TemplateFile,
  type WorkflowTemplate,
} from '../../shared/schemas/templates.js';

export const TEMPLATES_DIR = join(PACKAGE_ROOT, 'templates');

const EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/**
 * Each folder's templates, read once per process: they ship with svc and do not change while
 * it runs, and a process that builds many apps (a test sandbox per test, svc/testing) would
 * otherwise parse every YAML file again for each (a fifth of a sandbox's start).
 */
const loaded = new Map<string, readonly WorkflowTemplate[]>();

export function loadTemplates(dir = TEMPLATES_DIR): readonly WorkflowTemplate[] {
  let templates = loaded.get(dir);
  if (!templates) {
    templates = Object.freeze(readTemplates(dir));
    loaded.set(dir, templates);
  }
  return templates;
}

function readTemplates(dir: string): WorkflowTemplate[] {
  const templates: WorkflowTemplate[] = [];
  const seen = new Set<string>();
  for (const name of readdirSync(dir).sort()) {
    if (!EXTENSIONS.has(extname(name))) continue;
    const file = join(dir, name);
    const text = readFileSync(file, 'utf8');
    const raw: unknown = extname(name) === '.json' ? JSON.parse(text) : parseYaml(text);
    const parsed = TemplateFile.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(`template ${file}: ${issue.path.join('.')}: ${issue.message}`);
    }
    const template = parsed.data;
    if (seen.has(template.id)) throw new Error(`template ${file}: duplicate id ${template.id}`);
    seen.add(template.id);
    checkRoles(file, template);
    checkPlaceholders(file, template);
    templates.push({ ...template, steps_count: template.steps.length });
  }
  return templates;
}

/** Agent steps name a declared role; every role is used. */
function checkRoles(file: string, template: TemplateFile): void {
  const roles = new Set(template.roles.map((role) => role.name));
  const used = new Set<string>();
  template.steps.forEach((step, index) => {
    if (step.type === 'agent_action') {
      if (!step.role || !roles.has(step.role))
        throw new Error(`template ${file}: steps[${index}].role must name one of its roles`);
      used.add(step.role);
    } else if (step.role) {
      throw new Error(`template ${file}: steps[${index}] is not an agent step and has a role`);
    }
  });
  for (const role of roles)
    if (!used.has(role)) throw new Error(`template ${file}: role ${role} is not used by any step`);
}

/** Each placeholder names a step's config key that holds its example. */
function checkPlaceholders(file: string, template: TemplateFile): void {
  template.placeholders.forEach((placeholder, index) => {
    const [, stepId, key] = placeholder.path.split('.');
    const step = template.steps.find((candidate) => candidate.id === stepId);
    if (step?.config[key!] !== placeholder.example)
      throw new Error(
        `template ${file}: placeholders[${index}].path must name a step config key holding its example`,
      );
  });
}
