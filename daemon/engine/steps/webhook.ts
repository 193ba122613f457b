// webhook: one HTTP call through the daemon's outbound module (URL policy, connect-time address
// check, no redirects, timeout, capped answer); a 2xx completes the step, anything else fails
// it (external_api_error), and the engine's retry policy decides what follows. No retries here.
import type { OutboundResult } from '../../outbound/http.js';
import { checkOutboundUrl } from '../../outbound/url-policy.js';
import { interpolate } from '../expressions.js';
import type { StepContext, StepKind } from './kind.js';
import { nextOf, type StepOutcome } from './outcome.js';

export const DEFAULT_WEBHOOK_TIMEOUT_MS = 30_000;
/** A step result keeps at most this much of the answer. */
const MAX_BODY_BYTES = 65_536;

export const webhook: StepKind<'webhook'> = {
  check(step, check) {
    const url = step.config.url;
    if (!url.includes('{{')) check.checkUrl?.(url, `${check.at}.config.url`);
  },

  // Always the network: after the commit that reached the step, and recorded before it leaves.
  runNow: () => undefined,
  callsOut: true,

  async runLater({ context, step, scope, deps }) {
    const config = step.config;
    const budget = context.budget;
    const url = checkOutboundUrl(String(interpolate(config.url, scope, budget)), deps.urlPolicy);
    const method = String(config.method ?? 'POST').toUpperCase();
    const headers = Object.fromEntries(
      Object.entries(
        (interpolate(config.headers ?? {}, scope, budget) as Record<string, unknown>) ?? {},
      ).map(([key, value]) => [key, value === null ? '' : String(value)]),
    );
    const body =
      config.body === undefined || method === 'GET'
        ? undefined
        : interpolate(config.body, scope, budget);
    const result = await deps.outbound.request(
      {
        url,
        method,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        timeoutMs:
          typeof config.timeout_seconds === 'number'
            ? config.timeout_seconds * 1000
            : DEFAULT_WEBHOOK_TIMEOUT_MS,
        maxResponseBytes: MAX_BODY_BYTES,
      },
      {
        workspaceId: context.workspaceId,
        workflowId: context.workflowId,
        stepId: step.id,
        attempt: context.attempt,
        matchText: () => runInput(context),
        untilDue: context.untilDue,
      },
    );
    return outcomeOf(result, `${method} ${url}`, nextOf(step));
  },
};

/** The one mapping from the outbound module's result to the step's outcome. */
export function outcomeOf(result: OutboundResult, call: string, next: string[]): StepOutcome {
  const injectedFault = result.injectedFault;
  if (result.type === 'failed') {
    return {
      type: 'failed',
      code: 'external_api_error',
      message: `${call}: ${result.message}`,
      agentId: null,
      result: null,
      injectedFault,
    };
  }
  const answer = { status_code: result.status, body: parseBody(result.body) };
  if (result.status >= 200 && result.status < 300) {
    return { type: 'completed', result: answer, next, injectedFault };
  }
  return {
    type: 'failed',
    code: 'external_api_error',
    message: `${call} answered HTTP ${result.status}.`,
    agentId: null,
    result: answer,
    injectedFault,
  };
}

function parseBody(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** What a fault rule's --match reads for a step: the run's input (trigger payload), as JSON. */
export function runInput(context: StepContext): string {
  const trigger = context.scope.trigger as { payload?: unknown } | undefined;
  return JSON.stringify(trigger?.payload ?? null);
}
