// Helpers for the workflow end-to-end tests: REST calls with the operator credential in a given
// workspace, an active agent, workflow files on disk, and waiting for runs to reach a state (the
// daemon works in the background; time on the daemon clock only moves with `svc clock advance`).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestDaemon } from './daemon.js';
import type { ControlTarget } from './api.js';
import { HANG_TIMEOUT_MS, readUntil } from './events.js';
import { tempDir } from './temp-dir.js';

export interface Api {
  (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

/** REST with the operator key in workspace `ws` (answers status and parsed body). */
export async function apiFor(d: TestDaemon, ws: string): Promise<Api> {
  const { key } = await d.operator();
  return async (method, path, body) => {
    const answer = await d.callJson(method, `/v1${path}`, body, { key, tenant: ws });
    return { status: answer.status, body: answer.body };
  };
}

/** Creates and deploys an agent (L3 unless told), so workflow steps can use it at once. */
export async function activeAgent(
  api: Api,
  fields: Record<string, unknown> = {},
): Promise<{ id: string }> {
  const created = await api('POST', '/agents', {
    name: 'Workflow helper',
    ontology: 'retail-v1',
    type: 'customer-service',
    autonomy_level: 'L3',
    ...fields,
  });
  if (created.status !== 201) throw new Error(`create agent: ${JSON.stringify(created.body)}`);
  const deployed = await api('POST', '/agents/deploy', { agent_id: created.body.data.id });
  if (deployed.status !== 200) throw new Error(`deploy agent: ${JSON.stringify(deployed.body)}`);
  return { id: created.body.data.id };
}

let filesDir: string | undefined;

/** Writes a workflow file (text as given) in a temp dir; answers its path. */
export function workflowFile(name: string, text: string): string {
  filesDir ??= tempDir('svc-wf-files-');
  const file = join(filesDir, `${Date.now()}-${Math.random().toString(36).slice(2)}-${name}`);
  writeFileSync(file, text);
  return file;
}

/** Creates a workflow through the API; answers its id. */
export async function createWorkflow(api: Api, body: Record<string, unknown>): Promise<string> {
  const created = await api('POST', '/workflows', body);
  if (created.status !== 201) throw new Error(`create workflow: ${JSON.stringify(created.body)}`);
  return created.body.data.id;
}

/**
 * Starts a run in the background as `svc workflows run ID --json` does (POST .../execute,
 * wait_for_completion false); answers the started run (execution_id, status). For tests whose
 * subject is another command: the CLI's `run` is tested in workflows-cli.test.ts.
 */
export async function startRun(
  api: Api,
  workflowId: string,
  input: Record<string, unknown> = {},
): Promise<{ execution_id: string; status: string }> {
  const started = await api('POST', `/workflows/${workflowId}/execute`, {
    input,
    wait_for_completion: false,
  });
  if (started.status !== 202 && started.status !== 200)
    throw new Error(`start run: ${started.status} ${JSON.stringify(started.body)}`);
  return started.body.data;
}

/** Cancels a run as `svc workflows cancel` does; answers the cancelled run. */
export async function cancelRun(
  api: Api,
  workflowId: string,
  executionId: string,
): Promise<{ execution_id: string; status: string; cancelled_at: string }> {
  const answer = await api('POST', `/workflows/${workflowId}/executions/${executionId}/cancel`);
  if (answer.status !== 200)
    throw new Error(`cancel run: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.data;
}

export async function getExecution(api: Api, workflowId: string, executionId: string) {
  const answer = await api('GET', `/workflows/${workflowId}/executions/${executionId}`);
  if (answer.status !== 200)
    throw new Error(
      `GET execution ${executionId}: ${answer.status} ${JSON.stringify(answer.body)}`,
    );
  return answer.body.data;
}

/** Polls (real time, the daemon works meanwhile) until `done(execution)` or the time runs out. */
export async function waitForExecution(
  api: Api,
  workflowId: string,
  executionId: string,
  done: (execution: any) => boolean,
  timeoutMs = HANG_TIMEOUT_MS,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let execution = await getExecution(api, workflowId, executionId);
  while (!done(execution)) {
    if (Date.now() > deadline) {
      throw new Error(`execution ${executionId} did not get there: ${JSON.stringify(execution)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    execution = await getExecution(api, workflowId, executionId);
  }
  return execution;
}

/** Every item of a list (`path` with its query, if any), page after page of 100. */
async function allPages(api: Api, path: string): Promise<any[]> {
  const items: any[] = [];
  const joiner = path.includes('?') ? '&' : '?';
  let cursor: string | undefined;
  for (;;) {
    const page = await api(
      'GET',
      `${path}${joiner}limit=100${cursor ? `&starting_after=${cursor}` : ''}`,
    );
    if (page.status !== 200) throw new Error(`GET ${path}: ${JSON.stringify(page.body)}`);
    items.push(...page.body.data);
    if (!page.body.has_more) return items;
    cursor = page.body.meta.next_cursor;
  }
}

/** Every stored event of these types (all pages), oldest first. */
export async function allEvents(api: Api, types: string): Promise<any[]> {
  return (await allPages(api, `/events?type=${encodeURIComponent(types)}`)).reverse();
}

/** Every execution of a workflow (all pages). */
export function allExecutions(api: Api, workflowId: string): Promise<any[]> {
  return allPages(api, `/workflows/${workflowId}/executions`);
}

export const TERMINAL = ['completed', 'failed', 'cancelled', 'timeout'];

/**
 * `read()` again on each workflow run event until `done` holds: for what a run announces (a step
 * completed, the run started, completed or failed), from the daemon running at `target` now.
 */
export function afterRunEvents<T>(
  target: ControlTarget,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = HANG_TIMEOUT_MS,
): Promise<T> {
  return readUntil(target, read, done, () => true, {
    filter: { types: ['workflow.execution.*'] },
    timeoutMs,
    what: 'workflow run event',
  });
}

/** The first execution of a workflow once it exists (a run started in the background). */
export async function firstExecution(d: TestDaemon, api: Api, workflowId: string): Promise<string> {
  const page = await afterRunEvents(
    d,
    () => api('GET', `/workflows/${workflowId}/executions`),
    (answer) => answer.status === 200 && answer.body.data.length > 0,
  );
  return page.body.data[0].execution_id;
}

/** One agent_action step that answers with the trigger's payload: a run's smallest real work. */
export function answerStep(agentId: string) {
  return [
    {
      id: 'answer',
      name: 'Answer',
      type: 'agent_action',
      agent_id: agentId,
      config: { action: 'answer', input_mapping: { text: '{{trigger.payload}}' } },
    },
  ];
}

/** [step_id, status] of each step result of an execution, in order. */
export function stepStates(execution: { step_results: { step_id: string; status: string }[] }) {
  return execution.step_results.map((step) => [step.step_id, step.status]);
}

/** A wait step (its name is the id, capitalised), then `next` when given. */
export function waitStep(id: string, seconds: number, next?: string) {
  return {
    id,
    name: id[0]!.toUpperCase() + id.slice(1),
    type: 'wait',
    config: { duration_seconds: seconds },
    ...(next === undefined ? {} : { next_step_id: next }),
  };
}

/** POSTs `body` (JSON text) to a webhook trigger's URL, with the headers given at each call. */
export function hookPoster(d: Pick<TestDaemon, 'url'>, ws: string, path: string, body: string) {
  const url = `${d.url}/v1/hooks/${ws}/${path}`;
  return (headers: Record<string, string>) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
}
