// svc agents list|get|create|update|delete|deploy|execute|execution|approve|reject|messages|
// analytics, svc agents knowledge upload|list|delete, svc agents stub add|list|clear
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import {
  AGENT_STATUSES,
  AGENT_TYPES,
  AGENT_UPDATE_STATUSES,
  ANALYTICS_PERIODS,
  AUTONOMY_LEVELS,
  KNOWLEDGE_TYPES,
} from '../../shared/schemas/enums.js';
import type {
  AgentExecutionView,
  AgentView,
  AnalyticsView,
  KnowledgeDocumentView,
  Message,
  MessageView,
} from '../../shared/schemas/agents.js';
import type { DeletedView, ListBody } from '../../shared/schemas/common.js';
import { formatDuration } from '../../shared/duration.js';
import { delayOption, matchOption } from '../bounded-flags.js';
import { apiCommand, apiPath, listCommand, PAGE_OPTIONS } from '../api-commands.js';
import { command, defineCommands, group, stringOption, type Options } from '../command.js';
import { UsageError } from '../errors.js';
import { chalk, chalkStderr, table } from '../output.js';

function jsonOption(
  options: Options,
  name: string,
  flag: string,
): Record<string, unknown> | undefined {
  const text = stringOption(options, name);
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new UsageError(`${flag} takes a JSON object, e.g. ${flag} '{"key": "value"}'.`);
}

async function fileBody(options: Options): Promise<Record<string, unknown>> {
  const file = stringOption(options, 'file');
  if (!file) return {};
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  } catch {
    throw new UsageError(`-f ${file}: cannot read a JSON object from that file.`);
  }
}

/** Fields given as flags, over those of -f FILE. */
async function agentBody(options: Options): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = { ...(await fileBody(options)) };
  const set = (key: string, value: unknown) => {
    if (value !== undefined) body[key] = value;
  };
  set('name', stringOption(options, 'name'));
  set('description', stringOption(options, 'description'));
  set('type', stringOption(options, 'type'));
  set('ontology', stringOption(options, 'ontology'));
  set('autonomy_level', stringOption(options, 'autonomy'));
  set('status', stringOption(options, 'status'));
  set('capabilities', jsonOption(options, 'capabilities', '--capabilities'));
  set('guardrails', jsonOption(options, 'guardrails', '--guardrails'));
  set('personality', jsonOption(options, 'personality', '--personality'));
  return body;
}

const agentFields = [
  {
    flags: '-f, --file <file>',
    description: 'a JSON file with the agent fields (flags override it)',
  },
  { flags: '--name <name>', description: 'display name' },
  { flags: '--description <text>', description: 'what the agent is for' },
  { flags: '--type <type>', description: 'agent type', values: AGENT_TYPES },
  { flags: '--ontology <id>', description: 'industry ontology, e.g. retail-v1' },
  {
    flags: '--autonomy <level>',
    description:
      'autonomy level; default L2, where every action waits for a person (svc approvals); L3 acts unless guardrails.require_approval_for names the action',
    values: AUTONOMY_LEVELS,
  },
  { flags: '--capabilities <json>', description: 'JSON map of capability name to true/false' },
  {
    flags: '--guardrails <json>',
    description: 'JSON: {require_approval_for, blocked_actions, rate_limits: {actions_per_hour}}',
  },
  { flags: '--personality <json>', description: 'JSON: {tone, response_length, empathy_level}' },
];

function describeAgent(agent: AgentView): string {
  return [
    `${chalk.cyan(agent.id)} "${agent.name}" ${statusColour(agent.status)}`,
    `type ${agent.type}, ontology ${agent.ontology}, autonomy ${agent.autonomy_level}`,
    `interactions ${agent.stats.total_interactions}, success ${(agent.stats.success_rate * 100).toFixed(1)}%, avg ${formatDuration(agent.stats.avg_response_time_ms)}`,
  ].join('\n');
}

function describeExecution(execution: AgentExecutionView): string {
  const lines = [`${chalk.cyan(execution.execution_id)} ${statusColour(execution.status)}`];
  if (execution.result) {
    lines.push(
      `action:     ${execution.result.action} (confidence ${execution.result.confidence})`,
      `output:     ${execution.result.output}`,
    );
  }
  if (execution.error)
    lines.push(chalk.red(`error:      ${execution.error.code}: ${execution.error.message}`));
  return lines.join('\n');
}

function statusColour(status: string): string {
  if (status === 'active' || status === 'completed') return chalk.green(status);
  if (
    status === 'training' ||
    status === 'processing' ||
    status === 'awaiting_approval' ||
    status === 'paused'
  )
    return chalk.yellow(status);
  return chalk.red(status);
}

/** The command that moves an execution on: a decision when it awaits one, a look while it runs. */
function nextStep(execution: AgentExecutionView, [agentId]: string[]): string | undefined {
  const id = execution.execution_id;
  if (execution.status === 'awaiting_approval')
    return `Execution ${id} awaits a human decision. Decide with: svc approvals approve|reject ${id} [--reason TEXT] (or svc agents approve|reject ${agentId} ${id})`;
  if (execution.status === 'processing')
    return `Execution ${id} is processing. See it with: svc agents execution ${agentId} ${id}`;
  return undefined;
}

const AGENT_ID = { name: 'id', description: 'agent id (agt_...)' };
const EXECUTION_ARGS = [
  { name: 'agent', description: 'agent id (agt_...)' },
  { name: 'execution', description: 'execution id (exec_...)' },
];

/** approve and reject: one endpoint, the decision in the body. */
function decision(decision: 'approve' | 'reject', description: string) {
  return apiCommand({
    path: ['agents', decision],
    description,
    args: EXECUTION_ARGS,
    options: [{ flags: '--notes <text>', description: 'why' }],
    method: 'POST',
    endpoint: ([agentId, executionId]) =>
      apiPath('agents', agentId!, 'executions', executionId!, 'approve'),
    request: (_args, options) => ({
      body: { decision, ...(options.notes ? { notes: options.notes } : {}) },
    }),
    print: describeExecution,
  });
}

export default defineCommands([
  group(['agents'], 'Agents: create, execute, approve, converse, knowledge, sandbox stubs'),
  group(['agents', 'knowledge'], 'Knowledge documents of an agent'),
  group(['agents', 'stub'], 'Sandbox stubs: deterministic agent answers'),
  listCommand({
    path: ['agents', 'list'],
    description: 'List agents',
    options: [
      { flags: '--status <status>', description: 'agent status', values: AGENT_STATUSES },
      { flags: '--type <type>', description: 'agent type', values: AGENT_TYPES },
      ...PAGE_OPTIONS,
    ],
    endpoint: () => '/agents',
    query: (options) => ({ status: options.status, type: options.type }),
    columns: ['ID', 'NAME', 'TYPE', 'STATUS', 'AUTONOMY', 'INTERACTIONS'],
    row: (a: AgentView) => [
      a.id,
      a.name,
      a.type,
      statusColour(a.status),
      a.autonomy_level,
      String(a.stats.total_interactions),
    ],
  }),
  apiCommand({
    path: ['agents', 'get'],
    description: 'Show an agent',
    args: [AGENT_ID],
    endpoint: ([id]) => apiPath('agents', id!),
    print: describeAgent,
  }),
  command({
    path: ['agents', 'create'],
    description: 'Create an agent (it starts in training)',
    options: agentFields,
    examples: [
      'svc agents create --name Support --ontology retail-v1 --type customer-service --autonomy L3 --json',
    ],
    async run(ctx, _args, options) {
      const body = await agentBody(options);
      if (body.name === undefined) throw new UsageError('Missing --name (or "name" in -f FILE).');
      if (body.ontology === undefined)
        throw new UsageError('Missing --ontology (e.g. retail-v1), or "ontology" in -f FILE.');
      const agent = await (await ctx.api()).data<AgentView>('POST', '/agents', { body });
      ctx.out.result(agent, () => describeAgent(agent));
    },
  }),
  apiCommand({
    path: ['agents', 'update'],
    description: 'Change an agent (any field; --status active, paused or archived)',
    args: [AGENT_ID],
    options: [
      ...agentFields,
      { flags: '--status <status>', description: 'new status', values: AGENT_UPDATE_STATUSES },
    ],
    method: 'PATCH',
    endpoint: ([id]) => apiPath('agents', id!),
    request: async (_args, options) => ({ body: await agentBody(options) }),
    print: describeAgent,
  }),
  apiCommand({
    path: ['agents', 'delete'],
    description: 'Delete an agent (irreversible)',
    args: [AGENT_ID],
    method: 'DELETE',
    endpoint: ([id]) => apiPath('agents', id!),
    print: (result: DeletedView) => `Deleted agent ${result.id}`,
  }),
  apiCommand({
    path: ['agents', 'deploy'],
    description: 'Make an agent active now (skips the rest of its training)',
    args: [AGENT_ID],
    method: 'POST',
    endpoint: () => '/agents/deploy',
    request: ([id]) => ({ body: { agent_id: id } }),
    print: describeAgent,
  }),
  apiCommand({
    path: ['agents', 'execute'],
    description: 'Send a task to an agent',
    args: [AGENT_ID],
    options: [
      { flags: '--input <text>', description: 'the task' },
      { flags: '--context <json>', description: 'JSON object of context' },
      { flags: '--wait', description: 'wait for the result' },
    ],
    examples: ['svc agents execute agt_... --input "Where is order 1234?" --wait --json'],
    method: 'POST',
    endpoint: ([id]) => apiPath('agents', id!, 'execute'),
    request(_args, options) {
      const input = options.input;
      if (!input) throw new UsageError('Missing --input: the task for the agent.');
      return {
        body: {
          input,
          context: jsonOption(options, 'context', '--context'),
          wait_for_completion: options.wait === true,
        },
      };
    },
    print: describeExecution,
    hint: nextStep,
  }),
  apiCommand({
    path: ['agents', 'execution'],
    description: 'Show an execution',
    args: EXECUTION_ARGS,
    endpoint: ([agentId, executionId]) => apiPath('agents', agentId!, 'executions', executionId!),
    print: describeExecution,
    hint: nextStep,
  }),
  decision('approve', 'Approve an execution awaiting approval'),
  decision('reject', 'Reject an execution awaiting approval'),
  command({
    path: ['agents', 'messages'],
    description: 'Show the conversation history, or --send a message and print the reply',
    args: [AGENT_ID],
    options: [
      { flags: '--send <text>', description: 'send this message' },
      { flags: '--conversation <id>', description: 'conversation (conv_...) to read or continue' },
      { flags: '--limit <n>', description: 'page size, 1-100' },
    ],
    async run(ctx, [id], options) {
      const api = await ctx.api();
      const conversation = options.conversation;
      const text = options.send;
      if (text !== undefined) {
        const reply = await api.data<MessageView>('POST', apiPath('agents', id!, 'messages'), {
          body: { content: text, ...(conversation ? { conversation_id: conversation } : {}) },
        });
        // The reply alone on stdout; which conversation continues on stderr.
        ctx.out.result(reply, () => reply.content);
        ctx.out.note(
          chalkStderr.dim(
            `(conversation ${reply.conversation_id}; continue it with --conversation ${reply.conversation_id})`,
          ),
        );
        return;
      }
      const body = await api.request<ListBody<typeof Message>>(
        'GET',
        apiPath('agents', id!, 'messages'),
        {
          query: { conversation_id: conversation, limit: options.limit },
        },
      );
      ctx.out.result(
        body,
        () =>
          [...body.data]
            .reverse()
            .map(
              (m) =>
                `${chalk.dim(m.created_at)} ${m.role === 'agent' ? chalk.cyan('agent') : 'user '} ${m.content}`,
            )
            .join('\n') || chalk.dim('(no messages)'),
      );
    },
  }),
  apiCommand({
    path: ['agents', 'analytics'],
    description: "Show an agent's analytics",
    args: [AGENT_ID],
    options: [
      {
        flags: '--period <period>',
        description: 'period',
        values: ANALYTICS_PERIODS,
        default: '7d',
      },
      { flags: '--metrics <names>', description: 'comma-separated metric names' },
    ],
    endpoint: ([id]) => apiPath('agents', id!, 'analytics'),
    request: (_args, options) => ({ query: { period: options.period, metrics: options.metrics } }),
    print: (analytics: AnalyticsView) =>
      [
        `period ${analytics.period}`,
        ...Object.entries(analytics.metrics).map(
          ([k, v]) => `${k.padEnd(22)} ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`,
        ),
      ].join('\n'),
  }),
  command({
    path: ['agents', 'knowledge', 'upload'],
    description: 'Upload a knowledge document (PDF, DOCX, MD or TXT)',
    args: [
      { name: 'id', description: 'agent id (agt_...)' },
      { name: 'file', description: 'the document' },
    ],
    options: [
      {
        flags: '--type <type>',
        description: 'document type',
        values: KNOWLEDGE_TYPES,
        default: 'faq',
      },
      { flags: '--description <text>', description: 'what the document is' },
    ],
    async run(ctx, [id, file], options) {
      let content: Buffer;
      try {
        content = await readFile(file!);
      } catch {
        throw new UsageError(`Cannot read ${file}.`);
      }
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(content)]), basename(file!));
      form.append('type', options.type ?? 'faq');
      const description = options.description;
      if (description) form.append('description', description);
      const doc = await (
        await ctx.api()
      ).data<KnowledgeDocumentView>('POST', apiPath('agents', id!, 'knowledge'), { form });
      ctx.out.result(
        doc,
        () => `Learned ${chalk.cyan(doc.id)} (${doc.format}, ${doc.chunk_count} passages)`,
      );
    },
  }),
  listCommand({
    path: ['agents', 'knowledge', 'list'],
    description: "List an agent's knowledge documents",
    args: [AGENT_ID],
    endpoint: ([id]) => apiPath('agents', id!, 'knowledge'),
    columns: ['ID', 'FILE', 'FORMAT', 'TYPE', 'PASSAGES'],
    row: (d: KnowledgeDocumentView) => [d.id, d.filename, d.format, d.type, String(d.chunk_count)],
  }),
  apiCommand({
    path: ['agents', 'knowledge', 'delete'],
    description: 'Delete a knowledge document',
    args: [AGENT_ID, { name: 'document', description: 'document id (doc_...)' }],
    method: 'DELETE',
    endpoint: ([id, document]) => apiPath('agents', id!, 'knowledge', document!),
    print: (result: DeletedView) => `Deleted ${result.id}`,
  }),
  command({
    path: ['agents', 'stub', 'add'],
    description:
      'Sandbox: make an agent answer inputs that match with a fixed result, a failure or a delay',
    args: [AGENT_ID],
    options: [
      {
        flags: '--match <text|/regex/>',
        description: 'substring (case-insensitive) or /regex/flags',
      },
      { flags: '--result <json>', description: 'JSON {action, output, confidence}' },
      { flags: '--fail <code>', description: 'fail with this error code, e.g. external_api_error' },
      { flags: '--delay <duration>', description: 'take this long (daemon clock), e.g. 5s' },
    ],
    examples: [
      `svc agents stub add agt_... --match refund --result '{"action":"issue_refund","output":"Refunded","confidence":0.99}'`,
    ],
    async run(ctx, [id], options) {
      const match = matchOption(options.match);
      if (!match) throw new UsageError('Missing --match: text or /regex/ that inputs must match.');
      const delay = delayOption(options.delay, '--delay');
      const result = jsonOption(options, 'result', '--result');
      const fail = options.fail;
      if (!result && !fail && delay === undefined)
        throw new UsageError('Give --result, --fail or --delay.');
      const stub = await (
        await ctx.control()
      ).agents.stubs.add.mutate({
        agent_id: id!,
        match,
        ...(result
          ? { result: result as { action?: string; output?: string; confidence?: number } }
          : {}),
        ...(fail ? { fail } : {}),
        ...(delay !== undefined ? { delay_ms: delay } : {}),
      });
      ctx.out.result(
        stub,
        () => `Added stub ${chalk.cyan(stub.id)} for inputs matching ${stub.match}`,
      );
    },
  }),
  command({
    path: ['agents', 'stub', 'list'],
    description: "List an agent's sandbox stubs",
    args: [AGENT_ID],
    async run(ctx, [id]) {
      const stubs = await (await ctx.control()).agents.stubs.list.query({ agent_id: id! });
      ctx.out.list(stubs, () =>
        table(
          ['ID', 'MATCH', 'RESULT', 'FAIL', 'DELAY MS'],
          stubs.map((s) => [
            s.id,
            s.match,
            s.result ? JSON.stringify(s.result) : '-',
            s.fail ?? '-',
            String(s.delay_ms ?? '-'),
          ]),
        ),
      );
    },
  }),
  command({
    path: ['agents', 'stub', 'clear'],
    description: "Remove an agent's sandbox stubs",
    args: [AGENT_ID],
    async run(ctx, [id]) {
      const result = await (await ctx.control()).agents.stubs.clear.mutate({ agent_id: id! });
      ctx.out.result(result, () => `Removed ${result.cleared} stub(s)`);
    },
  }),
]);
