// Reads a fixture file for `svc fixtures apply` (JSON or YAML, `-` for stdin) with the bounds of
// workflow files (1 MiB, 100 YAML alias expansions, no key twice), and the files it names by
// path: knowledge documents and workflow files, relative to the fixture file and inside its
// folder (fixtures come from repositories people clone: shared/fixture-path.ts). The daemon gets
// all of it in one request and checks it (one code path for every client of the control channel).
import { readFile, realpath, stat } from 'node:fs/promises';
import { dirname, extname, isAbsolute, relative, resolve, sep } from 'node:path';
import { fixturePathProblem } from '../shared/fixture-path.js';
import { CliError, UsageError } from './errors.js';
import { parseJsonText, parseYamlText, readStdin } from './document-text.js';
import { parseWorkflowText } from './workflow-file.js';

const MAX_FIXTURE_BYTES = 1024 * 1024;
/** Knowledge documents are at most 10 MiB each; a fixture sends at most this much in all. */
const MAX_ATTACHED_BYTES = 40 * 1024 * 1024;

export interface FixturePayload {
  fixture: Record<string, unknown>;
  files: Record<string, { content_base64: string }>;
  workflow_files: Record<string, Record<string, unknown>>;
}

export async function readFixture(file: string): Promise<FixturePayload> {
  let text: string;
  try {
    text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`${file}: cannot read the fixture file (${(error as Error).message}).`);
  }
  if (Buffer.byteLength(text) > MAX_FIXTURE_BYTES) {
    throw new UsageError(`${file}: a fixture file is at most 1 MiB; split it in two.`);
  }
  const fixture = await parseFixture(text, file);
  const folder = file === '-' ? process.cwd() : dirname(resolve(file));
  return { fixture, ...(await attachments(fixture, await realpath(folder))) };
}

async function parseFixture(text: string, name: string): Promise<Record<string, unknown>> {
  // YAML reads JSON too; a .json file gets JSON's own error messages.
  const value =
    extname(name).toLowerCase() === '.json'
      ? await parseJsonText(text, name)
      : await parseYamlText(text, name);
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError(
      `${name}: a fixture file holds one object with sections (workspaces, agents, workflows, ...). See: svc fixtures schema`,
    );
  }
  return value as Record<string, unknown>;
}

/**
 * The files the fixture names, read relative to its folder (`base`, symlinks resolved); a missing
 * one, or one outside the folder, names its entry and field.
 */
async function attachments(
  fixture: Record<string, unknown>,
  base: string,
): Promise<Omit<FixturePayload, 'fixture'>> {
  const files: FixturePayload['files'] = {};
  const workflowFiles: FixturePayload['workflow_files'] = {};
  let total = 0;
  for (const [name, agent] of entries(fixture.agents)) {
    const knowledge = (agent as { knowledge?: unknown }).knowledge;
    if (!Array.isArray(knowledge)) continue;
    for (const [index, item] of knowledge.entries()) {
      const path = typeof item === 'string' ? item : (item as { path?: unknown } | null)?.path;
      if (typeof path !== 'string' || path in files) continue;
      const content = await readInside(base, path, `agents.${name}.knowledge[${index}]`);
      total += content.length;
      if (total > MAX_ATTACHED_BYTES) {
        throw new CliError(
          `agents.${name}.knowledge[${index}]: the fixture's knowledge files add up to over 40 MiB; apply them in several fixture files.`,
        );
      }
      files[path] = { content_base64: content.toString('base64') };
    }
  }
  for (const [name, workflow] of entries(fixture.workflows)) {
    const path = (workflow as { file?: unknown }).file;
    if (typeof path !== 'string' || path in workflowFiles) continue;
    const text = (await readInside(base, path, `workflows.${name}.file`)).toString('utf8');
    try {
      workflowFiles[path] = await parseWorkflowText(text, path);
    } catch (error) {
      throw new CliError(`workflows.${name}.file: ${(error as Error).message}`);
    }
  }
  return { files, workflow_files: workflowFiles };
}

function entries(section: unknown): [string, unknown][] {
  return section && typeof section === 'object' && !Array.isArray(section)
    ? Object.entries(section).filter(([, value]) => value && typeof value === 'object')
    : [];
}

/**
 * Reads a file the fixture names at `at`, if it is inside the fixture's folder `base`: the path
 * as written (no absolute path, no .. out), then where it really is once symlinks are resolved
 * (a link in a cloned repository may point anywhere), and a regular file (not a pipe or device).
 */
async function readInside(base: string, path: string, at: string): Promise<Buffer> {
  const problem = fixturePathProblem(path);
  if (problem) throw refused(at, `${problem}.`);
  try {
    const real = await realpath(resolve(base, path));
    const inside = relative(base, real);
    if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
      throw refused(
        at,
        `${path} leads through a symbolic link to ${real}, outside the fixture file's folder; a fixture reads files in its own folder and below only (copy the file next to the fixture).`,
      );
    }
    if (!(await stat(real)).isFile()) {
      throw refused(at, `${path} is not a regular file; name a document or a workflow file.`);
    }
    return await readFile(real);
  } catch (error) {
    if (error instanceof CliError) throw error;
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw refused(
      at,
      `${missing ? `no file ${path}` : `cannot read ${path} (${(error as Error).message})`} (paths are relative to the fixture file).`,
    );
  }
}

function refused(at: string, message: string): CliError {
  return new CliError(`${at}: ${message} Nothing was applied.`, 1, 'invalid_parameter', {
    param: at,
  });
}

/** `SVC_<KIND>_<NAME>_ID=...` lines (and the values shown once) for CI. */
export function envLines(
  result: {
    ids: Record<string, Record<string, string> | undefined>;
    secrets: { kind: string; name: string; field: string; value: string }[];
  },
  /** The daemon's API (http://host:port/v1), first, as the testing kit's SVC_BASE_URL. */
  baseUrl: string,
): string {
  const word = (text: string) => text.toUpperCase().replace(/[^A-Z0-9]+/g, '_');
  const singular: Record<string, string> = {
    workspaces: 'WORKSPACE',
    keys: 'KEY',
    secrets: 'SECRET',
    integrations: 'INTEGRATION',
    agents: 'AGENT',
    workflows: 'WORKFLOW',
    webhooks: 'WEBHOOK',
    oauth_apps: 'OAUTH_APP',
  };
  const lines: string[] = [`SVC_BASE_URL=${baseUrl}`];
  for (const [kind, byName] of Object.entries(result.ids)) {
    for (const [name, id] of Object.entries(byName ?? {})) {
      lines.push(`SVC_${singular[kind] ?? word(kind)}_${word(name)}_ID=${id}`);
    }
  }
  for (const shown of result.secrets) {
    lines.push(
      `SVC_${singular[shown.kind] ?? word(shown.kind)}_${word(shown.name)}_${word(shown.field)}=${shown.value}`,
    );
  }
  return lines.join('\n') + '\n';
}
