// svc faults add|list|remove|clear: sandbox fault rules over the control channel. A rule says
// where (a webhook's deliveries, every call to a URL prefix, a workflow step, an agent), when
// (attempts, a seeded share, a number of hits, a match) and what (a status, a timeout, a
// latency, a reset connection, an error code). Flags are checked against the rule's bounds here,
// so that a refusal names the flag and its range.
import {
  FAULT_ATTEMPTS,
  FAULT_SEED,
  FAULT_STATUS,
  FAULT_TIMES,
} from '../../shared/schemas/sandbox-limits.js';
import { delayOption, integerOption, matchOption } from '../bounded-flags.js';
import type { FaultAdd, FaultView } from '../../shared/schemas/faults.js';
import { command, defineCommands, group, stringOption, type Options } from '../command.js';
import { UsageError } from '../errors.js';
import { chalk, table } from '../output.js';

function workspaceOf(options: Options): { workspace_id?: string } {
  const workspace = stringOption(options, 'workspace') ?? process.env.SVC_WORKSPACE;
  return workspace ? { workspace_id: workspace } : {};
}

/** "2" or "1-2" -> {from, to}, within FAULT_ATTEMPTS. */
export function parseAttempts(text: string): { from: number; to: number } {
  const found = /^(\d+)(?:-(\d+))?$/.exec(text.trim());
  const from = Number(found?.[1]);
  const to = found?.[2] === undefined ? from : Number(found[2]);
  const { min, max } = FAULT_ATTEMPTS;
  if (!found || from < min || to < from || to > max) {
    throw new UsageError(
      `--attempts takes N or FROM-TO with ${min} <= FROM <= TO <= ${max}, e.g. 1-2; got "${text}".`,
    );
  }
  return { from, to };
}

function numberOption(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value)) {
    throw new UsageError(`${flag} takes a number; got "${text}".`);
  }
  return value;
}

/** One line on what a rule does, for humans. */
export function describeFault(fault: FaultView): string {
  const where = fault.where.webhook_id
    ? `deliveries of ${fault.where.webhook_id}`
    : fault.where.url_prefix
      ? `calls to ${fault.where.url_prefix}*`
      : fault.where.workflow_id
        ? `step ${fault.where.step_id} of ${fault.where.workflow_id}`
        : `executions of ${fault.where.agent_id}`;
  const when: string[] = [];
  if (fault.when.attempts) {
    const { from, to } = fault.when.attempts;
    when.push(from === to ? `attempt ${from}` : `attempts ${from}-${to}`);
  }
  if (fault.when.rate !== null) when.push(`${fault.when.rate * 100}% (seed ${fault.when.seed})`);
  if (fault.when.match) when.push(`matching ${fault.when.match}`);
  if (fault.when.times !== null) when.push(`${fault.when.times} time(s)`);
  const what: string[] = [];
  if (fault.what.latency_ms !== null) what.push(`+${fault.what.latency_ms} ms`);
  if (fault.what.status !== null) what.push(`HTTP ${fault.what.status}`);
  if (fault.what.timeout) what.push('timeout');
  if (fault.what.reset) what.push('connection reset');
  if (fault.what.fail) what.push(`fail ${fault.what.fail}`);
  return `${what.join(' then ')} on ${where}${when.length ? `, ${when.join(', ')}` : ''}`;
}

const FAULT_ID = { name: 'id', description: 'fault rule id (flt_...)' };

export default defineCommands([
  group(['faults'], 'Sandbox fault injection: make deliveries, steps and agents fail on purpose'),
  command({
    path: ['faults', 'add'],
    description: 'Add a fault rule (sandbox only): where, when and what to inject',
    options: [
      { flags: '--webhook <hook_id>', description: 'where: the deliveries of this webhook' },
      {
        flags: '--url-prefix <url>',
        description: 'where: every outbound call (deliveries, webhook steps) to URLs starting so',
      },
      { flags: '--workflow <wfl_id>', description: 'where: a step of this workflow (with --step)' },
      { flags: '--step <id>', description: 'the step id of --workflow' },
      { flags: '--agent <agt_id>', description: 'where: the executions of this agent' },
      {
        flags: '--attempts <n|from-to>',
        description:
          'when: these attempts of each delivery or step (an agent: its n-th executions)',
      },
      { flags: '--rate <0..1>', description: 'when: this share of calls, drawn from --seed' },
      {
        flags: '--seed <int>',
        description: 'seed of --rate (default 0): same calls, same outcomes',
      },
      { flags: '--times <n>', description: 'when: the rule retires after this many faults' },
      {
        flags: '--match <text|/regex/>',
        description: 'when: event type (deliveries), run input (steps) or agent input matches',
      },
      { flags: '--status <code>', description: 'what: the call is answered with this HTTP status' },
      { flags: '--timeout', description: "what: no answer within the call's timeout" },
      {
        flags: '--latency <duration>',
        description: 'what: delay the call (daemon clock), e.g. 2s',
      },
      { flags: '--reset', description: 'what: the connection is reset' },
      {
        flags: '--fail <code>',
        description: 'what: the step or agent execution fails with this error code',
      },
    ],
    examples: [
      'svc faults add --webhook hook_... --attempts 1-2 --status 503',
      'svc faults add --workflow wfl_... --step charge --attempts 1 --timeout',
      'svc faults add --url-prefix http://127.0.0.1:4000/ --rate 0.3 --seed 42 --status 500',
      'svc faults add --agent agt_... --times 1 --fail external_api_error',
    ],
    async run(ctx, _args, options) {
      const latency = delayOption(options.latency, '--latency');
      const attempts = options.attempts === undefined ? undefined : parseAttempts(options.attempts);
      const seed = integerOption(options.seed, '--seed', FAULT_SEED);
      const times = integerOption(options.times, '--times', FAULT_TIMES);
      const status = integerOption(options.status, '--status', FAULT_STATUS, 'an HTTP status');
      const match = matchOption(options.match);
      const rate = numberOption(options.rate, '--rate');
      if (rate !== undefined && (rate < 0 || rate > 1))
        throw new UsageError('--rate takes a share between 0 and 1, e.g. 0.3.');
      const rule: FaultAdd = {
        ...workspaceOf(options),
        ...(options.webhook ? { webhook_id: options.webhook } : {}),
        ...(options.urlPrefix ? { url_prefix: options.urlPrefix } : {}),
        ...(options.workflow ? { workflow_id: options.workflow } : {}),
        ...(options.step ? { step_id: options.step } : {}),
        ...(options.agent ? { agent_id: options.agent } : {}),
        ...(attempts ? { attempts_from: attempts.from, attempts_to: attempts.to } : {}),
        ...(rate !== undefined ? { rate } : {}),
        ...(seed !== undefined ? { seed } : {}),
        ...(times !== undefined ? { times } : {}),
        ...(match ? { match } : {}),
        ...(status !== undefined ? { status } : {}),
        ...(options.timeout ? { timeout: true } : {}),
        ...(latency !== undefined ? { latency_ms: latency } : {}),
        ...(options.reset ? { reset: true } : {}),
        ...(options.fail ? { fail: options.fail } : {}),
      };
      const fault = await (await ctx.control()).faults.add.mutate(rule);
      ctx.out.result(
        fault,
        () => `Added fault rule ${chalk.cyan(fault.id)}: ${describeFault(fault)}`,
      );
    },
  }),
  command({
    path: ['faults', 'list'],
    description: "List the workspace's fault rules, with how often each was asked and hit",
    async run(ctx, _args, options) {
      const faults = await (await ctx.control()).faults.list.query(workspaceOf(options));
      ctx.out.list(faults, () =>
        table(
          ['ID', 'RULE', 'SEEN', 'HITS', 'STATE'],
          faults.map((fault) => [
            fault.id,
            describeFault(fault),
            String(fault.seen),
            String(fault.hits),
            fault.retired ? 'retired' : 'active',
          ]),
        ),
      );
    },
  }),
  command({
    path: ['faults', 'remove'],
    description: 'Remove one fault rule',
    args: [FAULT_ID],
    async run(ctx, [id], options) {
      const fault = await (
        await ctx.control()
      ).faults.remove.mutate({
        id: id!,
        ...workspaceOf(options),
      });
      ctx.out.result(fault, () => `Removed fault rule ${fault.id}`);
    },
  }),
  command({
    path: ['faults', 'clear'],
    description: 'Remove every fault rule of the workspace',
    async run(ctx, _args, options) {
      const result = await (await ctx.control()).faults.clear.mutate(workspaceOf(options));
      ctx.out.result(result, () => `Removed ${result.cleared} fault rule(s)`);
    },
  }),
]);
