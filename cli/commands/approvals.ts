// svc approvals [list] | approve | reject: the agent executions waiting for a person's decision
// (with the run and step that asked, what the agent proposes and how long it has waited), and a
// decision by the execution id alone. `svc agents approve|reject AGENT EXECUTION` decides the same.
import { formatDuration } from '../../shared/duration.js';
import type { AgentExecutionView } from '../../shared/schemas/agents.js';
import type { ApprovalView } from '../../shared/schemas/control-output.js';
import { PAGE_OPTIONS } from '../api-commands.js';
import { command, defineCommands, group, type Options } from '../command.js';
import { UsageError } from '../errors.js';
import { chalk, chalkStderr, table } from '../output.js';

const DECIDE_HINT = 'Decide with: svc approvals approve|reject EXECUTION [--reason TEXT]';

function limitOption(options: Options): number | undefined {
  const text = options.limit as string | undefined;
  if (text === undefined) return undefined;
  const limit = Number(text);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new UsageError(`--limit takes a whole number from 1 to 100 (got "${text}").`);
  return limit;
}

/** "refund_order: Refund order A-1 (0.62)". */
function proposal(approval: ApprovalView): string {
  const proposed = approval.proposed;
  if (!proposed) return '';
  const text = proposed.output.replace(/\s+/g, ' ');
  const brief = text.length > 50 ? `${text.slice(0, 49)}…` : text;
  return `${proposed.action}${brief ? `: ${brief}` : ''} (${proposed.confidence})`;
}

function describeDecided(execution: AgentExecutionView): string {
  const verb = execution.approval?.decision === 'reject' ? 'Rejected' : 'Approved';
  const notes = execution.approval?.notes ? ` (${execution.approval.notes})` : '';
  return `${verb} ${chalk.cyan(execution.execution_id)} of agent ${execution.agent_id}: ${execution.status}${notes}`;
}

function decision(decision: 'approve' | 'reject', description: string) {
  return command({
    path: ['approvals', decision],
    description,
    args: [{ name: 'execution', description: 'agent execution id (exec_...), from svc approvals' }],
    options: [{ flags: '--reason <text>', description: 'why (kept as the decision notes)' }],
    examples: [`svc approvals ${decision} exec_... --reason "checked the order"`],
    async run(ctx, [executionId], options) {
      const decided = await (
        await ctx.control()
      ).approvals.decide.mutate({
        execution_id: executionId!,
        decision,
        ...(options.reason ? { reason: options.reason } : {}),
      });
      ctx.out.result(decided, () => describeDecided(decided));
    },
  });
}

export default defineCommands([
  group(['approvals'], 'Agent executions awaiting a decision: list, approve, reject'),
  command({
    path: ['approvals', 'list'],
    description:
      'List the agent executions awaiting approval: agent, run, step, proposal, time waited (also: svc approvals)',
    isDefault: true,
    options: PAGE_OPTIONS,
    examples: ['svc approvals', 'svc approvals --json | jq -r .data[].execution_id'],
    async run(ctx, _args, options) {
      const workspaceId = ctx.workspaceInUse().id;
      const limit = limitOption(options);
      const page = await (
        await ctx.control()
      ).approvals.list.query({
        ...(workspaceId ? { workspace_id: workspaceId } : {}),
        ...(limit ? { limit } : {}),
        ...(options.startingAfter ? { starting_after: options.startingAfter } : {}),
      });
      ctx.out.result(page, () =>
        table(
          ['EXECUTION', 'AGENT', 'RUN', 'STEP', 'PROPOSES', 'WAITING'],
          page.data.map((approval) => [
            approval.execution_id,
            approval.agent_name
              ? `${approval.agent_id} (${approval.agent_name})`
              : approval.agent_id,
            approval.workflow_execution_id ?? '-',
            approval.step_id ?? '-',
            proposal(approval),
            `${formatDuration(approval.waiting_ms)} (since ${approval.created_at})`,
          ]),
        ),
      );
      if (ctx.out.json) return;
      if (page.has_more)
        ctx.out.note(chalkStderr.dim(`more: --starting-after ${page.meta.next_cursor}`));
      if (page.data.length > 0) ctx.out.note(DECIDE_HINT);
    },
  }),
  decision('approve', 'Approve an agent execution awaiting approval, by its id alone'),
  decision('reject', 'Reject an agent execution awaiting approval, by its id alone'),
]);
