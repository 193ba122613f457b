// Starting a webhook-triggered workflow the way its callers do: a POST to the hook's URL, signed
// when the trigger has a secret. The secret never leaves the daemon: the control channel signs
// the body (daemon/triggers/trigger.service.ts signHook), and the CLI sends exactly those bytes.
import { readFile } from 'node:fs/promises';
import ky from 'ky';
import { ApiRequestError, type ApiErrorBody } from '../shared/api-error.js';
import { apiPath } from './api-commands.js';
import type { CliContext } from './context.js';
import { CliError, UsageError } from './errors.js';

export interface HookWorkflow {
  id: string;
  workspace_id: string;
  name: string;
  status: string;
  trigger: { type: string; config: Record<string, unknown> };
}

export interface Hook {
  workflow: HookWorkflow;
  url: string;
  path: string;
  signed: boolean;
}

/** The workflow and its hook's address; refused when its trigger is not a webhook. */
export async function findHook(ctx: CliContext, workflowId: string): Promise<Hook> {
  const workflow = await (
    await ctx.api()
  ).data<HookWorkflow>('GET', apiPath('workflows', workflowId));
  if (workflow.trigger.type !== 'webhook') {
    throw new CliError(
      `Workflow ${workflow.id} has a ${workflow.trigger.type} trigger, not a webhook one. Set trigger {type: webhook, config: {path: NAME}} with: svc workflows update ${workflow.id} -f FILE`,
      1,
      'not_a_webhook_trigger',
    );
  }
  const path = String(workflow.trigger.config.path);
  return {
    workflow,
    path,
    url: `${ctx.appUrl()}/v1/hooks/${workflow.workspace_id}/${encodeURIComponent(path)}`,
    signed: workflow.trigger.config.has_secret === true,
  };
}

/** --data: JSON text, or @file (its bytes sent as they are); {} when absent. */
export async function readHookBody(data: string | undefined): Promise<string> {
  if (data === undefined) return '{}';
  let text = data;
  let where = '--data';
  if (data.startsWith('@')) {
    where = `--data ${data}`;
    try {
      text = await readFile(data.slice(1), 'utf8');
    } catch (error) {
      throw new UsageError(`${where}: cannot read the file (${(error as Error).message}).`);
    }
  }
  try {
    JSON.parse(text);
  } catch {
    throw new UsageError(
      `${where} takes JSON, e.g. --data '{"alert": "disk full"}' or --data @alert.json.`,
    );
  }
  return text;
}

/** X-Svc-Signature for `body` on the workflow's hook, signed now by the daemon. */
export async function signBody(ctx: CliContext, hook: Hook, body: string): Promise<string> {
  const signed = await (
    await ctx.control()
  ).triggers.signHook.mutate({
    workspace_id: hook.workflow.workspace_id,
    workflow_id: hook.workflow.id,
    body,
  });
  if (signed.signature === null)
    throw new CliError(`The hook of ${hook.workflow.id} lost its secret meanwhile; try again.`);
  return signed.signature;
}

/**
 * POSTs the body to the hook (signed when it has a secret); answers the run's id. A signature
 * starts one run only and t is whole seconds: the same body triggered twice within a second is a
 * copy (409 webhook_replayed), so it is signed once more in the next second, which is what
 * "trigger it again" means.
 */
export async function triggerHook(ctx: CliContext, hook: Hook, body: string): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (hook.signed) headers['x-svc-signature'] = await signBody(ctx, hook, body);
    const response = await ky.post(hook.url, {
      body,
      headers,
      retry: 0,
      timeout: 60_000,
      throwHttpErrors: false,
    });
    const text = await response.text();
    const answer = (text ? JSON.parse(text) : undefined) as
      ({ data?: { execution_id: string } } & ApiErrorBody) | undefined;
    if (response.ok && answer?.data) return answer.data.execution_id;
    const code = answer?.error?.code ?? 'http_error';
    if (code === 'webhook_replayed' && hook.signed && attempt === 1) {
      await new Promise((resolve) => setTimeout(resolve, 1005 - (Date.now() % 1000)));
      continue;
    }
    throw new ApiRequestError(
      response.status,
      code,
      answer?.error?.message ?? `HTTP ${response.status}`,
      answer,
    );
  }
}

/** A command line that passes `text` to a POSIX shell as one word. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
