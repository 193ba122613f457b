// svc agents list|get|create|update|delete|deploy|execute|execution|approve|reject|messages|
// analytics, svc agents knowledge upload|list|delete, svc agents stub add|list|clear
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseDuration } from '../../shared/duration.js';
import {
  AGENT_STATUSES,
  AGENT_TYPES,
  AGENT_UPDATE_STATUSES,
  ANALYTICS_PERIODS,
  AUTONOMY_LEVELS,
  KNOWLEDGE_TYPES,
} from '../../shared/schemas/enums.js';
import type {
  Agent,
  AgentExecutionView,
  AgentView,
  AnalyticsView,
  KnowledgeDocument,
  KnowledgeDocumentView,
  Message,
  MessageView,
} from '../../shared/schemas/agents.js';
import type { DeletedView, ListBody } from '../../shared/schemas/common.js';
import { command, defineCommands, group, stringOption, type Options } from '../command.js';
import type { CliContext } from '../context.js';
import { UsageError } from '../errors.js';
import { chalk, table } from '../output.js';

const path = (...parts: string[]) => parts.map(encodeURIComponent).join('/');

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
  { flags: '--autonomy <level>', description: 'autonomy level', values: AUTONOMY_LEVELS },
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
    `interactions ${agent.stats.total_interactions}, success ${(agent.stats.success_rate * 100).toFixed(1)}%, avg ${agent.stats.avg_response_time_ms} ms`,
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

async function decide(
  ctx: CliContext,
  [agentId, executionId]: string[],
  options: Options,
  decision: 'approve' | 'reject',
) {
  const execution = await (
    await ctx.api()
  ).data<AgentExecutionView>(
    'POST',
    `/agents/${path(agentId!, 'executions', executionId!, 'approve')}`,
    {
      body: {
        decision,
        ...(stringOption(options, 'notes') ? { notes: stringOption(options, 'notes') } : {}),
      },
    },
  );
  ctx.out.result(execution, () => describeExecution(execution));
}

export default defineCommands([
  group(['agents'], 'Agents: create, execute, approve, converse, knowledge, sandbox stubs'),
  group(['agents', 'knowledge'], 'Knowledge documents of an agent'),
  group(['agents', 'stub'], 'Sandbox stubs: deterministic agent answers'),
  command({
    path: ['agents', 'list'],
    description: 'List agents',
    options: [
      { flags: '--status <status>', description: 'agent status', values: AGENT_STATUSES },
      { flags: '--type <type>', description: 'agent type', values: AGENT_TYPES },
      { flags: '--limit <n>', description: 'page size, 1-100' },
      { flags: '--starting-after <id>', description: 'cursor' },
    ],
    async run(ctx, _args, options) {
      const body = await (
        await ctx.api()
      ).request<ListBody<typeof Agent>>('GET', '/agents', {
        query: {
          status: options.status,
          type: options.type,
          limit: options.limit,
          starting_after: options.startingAfter,
        },
      });
      ctx.out.result(body, () =>
        table(
          ['ID', 'NAME', 'TYPE', 'STATUS', 'AUTONOMY', 'INTERACTIONS'],
          body.data.map((a) => [
            a.id,
            a.name,
            a.type,
            statusColour(a.status),
            a.autonomy_level,
            String(a.stats.total_interactions),
          ]),
        ),
      );
    },
  }),
  command({
    path: ['agents', 'get'],
    description: 'Show an agent',
    args: [{ name: 'id', description: 'agent id (agt_...)' }],
    async run(ctx, [id]) {
      const agent = await (await ctx.api()).data<AgentView>('GET', `/agents/${path(id!)}`);
      ctx.out.result(agent, () => describeAgent(agent));
    },
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
  command({
    path: ['agents', 'update'],
    description: 'Change an agent (any field; --status active, paused or archived)',
    args: [{ name: 'id', description: 'agent id (agt_...)' }],
    options: [
      ...agentFields,
      { flags: '--status <status>', description: 'new status', values: AGENT_UPDATE_STATUSES },
    ],
    async run(ctx, [id], options) {
      const agent = await (
        await ctx.api()
      ).data<AgentView>('PATCH', `/agents/${path(id!)}`, { body: await agentBody(options) });
      ctx.out.result(agent, () => describeAgent(agent));
    },
  }),
  command({
    path: ['agents', 'delete'],
    description: 'Delete an agent (irreversible)',
    args: [{ name: 'id', description: 'agent id (agt_...)' }],
    async run(ctx, [id]) {
      const result = await (await ctx.api()).data<DeletedView>('DELETE', `/agents/${path(id!)}`);
      ctx.out.result(result, () => `Deleted agent ${result.id}`);
    },
  }),
  command({
    path: ['agents', 'deploy'],
    description: 'Make an agent active now (skips the rest of its training)',
    args: [{ name: 'id', description: 'agent id (agt_...)' }],
    async run(ctx, [id]) {
      const agent = await (
        await ctx.api()
      ).data<AgentView>('POST', '/agents/deploy', { body: { agent_id: id } });
      ctx.out.result(agent, () => describeAgent(agent));
    },
  }),
  command({
    path: ['agents', 'execute'],
    description: 'Send a task to an agent',
    args: [{ name: 'id', description: 'agent id (agt_...)' }],
    options: [
      { flags: '--input <text>', description: 'the task' },
      { flags: '--context <json>', description: 'JSON object of context' },
      { flags: '--wait', description: 'wait for the result' },
    ],
    examples: ['svc agents execute agt_... --input "Where is order 1234?" --wait --json'],
    async run(ctx, [id], options) {
      const input = options.input;
      if (!input) throw new UsageError('Missing --input: the task for the agent.');
      const execution = await (
        await ctx.api()
      ).data<AgentExecutionView>('POST', `/agents/${path(id!)}/execute`, {
        body: {
          input,
          context: jsonOption(options, 'context', '--context'),
          wait_for_completion: options.wait === true,
        },
      });
      ctx.out.result(execution, () => describeExecution(execution));
    },
  }),
  command({
    path: ['agents', 'execution'],
    description: 'Show an execution',
    args: [
      { name: 'agent', description: 'agent id (agt_...)' },
      { name: 'execution', description: 'execution id (exec_...)' },
    ],
    async run(ctx, [agentId, executionId]) {
      const execution = await (
        await ctx.api()
      ).data<AgentExecutionView>('GET', `/agents/${path(agentId!, 'executions', executionId!)}`);
      ctx.out.result(execution, () => describeExecution(execution));
    },
  }),
  command({
    path: ['agents', 'approve'],
    description: 'Approve an execution awaiting approval',
    args: [
      { name: 'agent', description: 'agent id (agt_...)' },
      { name: 'execution', description: 'execution id (exec_...)' },
    ],
    options: [{ flags: '--notes <text>', description: 'why' }],
    run: (ctx, args, options) => decide(ctx, args, options, 'approve'),
  }),
  command({
    path: ['agents', 'reject'],
    description: 'Reject an execution awaiting approval',
    args: [
      { name: 'agent', description: 'agent id (agt_...)' },
      { name: 'execution', description: 'execution id (exec_...)' },
    ],
    options: [{ flags: '--notes <text>', description: 'why' }],
    run: (ctx, args, options) => decide(ctx, args, options, 'reject'),
  }),
  command({
    path: ['agents', 'messages'],
    description: 'Show the conversation history, or --send a message and print the reply',
    args: [{ name: 'id', description: 'agent id (agt_...)' }],
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
        const reply = await api.data<MessageView>('POST', `/agents/${path(id!)}/messages`, {
          body: { content: text, ...(conversation ? { conversation_id: conversation } : {}) },
        });
        ctx.out.result(
          reply,
          () => `${reply.content}\n${chalk.dim(`(conversation ${reply.conversation_id})`)}`,
        );
        return;
      }
      const body = await api.request<ListBody<typeof Message>>(
        'GET',
        `/agents/${path(id!)}/messages`,
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
  command({
    path: ['agents', 'analytics'],
    description: "Show an agent's analytics",
    args: [{ name: 'id', description: 'agent id (agt_...)' }],
    options: [
      {
        flags: '--period <period>',
        description: 'period',
        values: ANALYTICS_PERIODS,
        default: '7d',
      },
      { flags: '--metrics <names>', description: 'comma-separated metric names' },
    ],
    async run(ctx, [id], options) {
      const analytics = await (
        await ctx.api()
      ).data<AnalyticsView>('GET', `/agents/${path(id!)}/analytics`, {
        query: {
          period: options.period,
          metrics: options.metrics,
        },
      });
      ctx.out.result(analytics, () =>
        [
          `period ${analytics.period}`,
          ...Object.entries(analytics.metrics).map(
            ([k, v]) => `${k.padEnd(22)} ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`,
          ),
        ].join('\n'),
      );
    },
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
      ).data<KnowledgeDocumentView>('POST', `/agents/${path(id!)}/knowledge`, { form });
      ctx.out.result(
        doc,
        () => `Learned ${chalk.cyan(doc.id)} (${doc.format}, ${doc.chunk_count} passages)`,
      );
    },
  }),
  command({
    path: ['agents', 'knowledge', 'list'],
    description: "List an agent's knowledge documents",
    args: [{ name: 'id', description: 'agent id (agt_...)' }],
    async run(ctx, [id]) {
      const body = await (
        await ctx.api()
      ).request<ListBody<typeof KnowledgeDocument>>('GET', `/agents/${path(id!)}/knowledge`);
      ctx.out.result(body, () =>
        table(
          ['ID', 'FILE', 'FORMAT', 'TYPE', 'PASSAGES'],
          body.data.map((d) => [d.id, d.filename, d.format, d.type, String(d.chunk_count)]),
        ),
      );
    },
  }),
  command({
    path: ['agents', 'knowledge', 'delete'],
    description: 'Delete a knowledge document',
    args: [
      { name: 'id', description: 'agent id (agt_...)' },
      { name: 'document', description: 'document id (doc_...)' },
    ],
    async run(ctx, [id, document]) {
      const result = await (
        await ctx.api()
      ).data<DeletedView>('DELETE', `/agents/${path(id!, 'knowledge', document!)}`);
      ctx.out.result(result, () => `Deleted ${result.id}`);
    },
  }),
  command({
    path: ['agents', 'stub', 'add'],
    description:
      'Sandbox: make an agent answer inputs that match with a fixed result, a failure or a delay',
    args: [{ name: 'id', description: 'agent id (agt_...)' }],
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
      const match = options.match;
      if (!match) throw new UsageError('Missing --match: text or /regex/ that inputs must match.');
      const delayText = options.delay;
      const delay = delayText === undefined ? undefined : parseDuration(delayText);
      if (delay === null || delay === 0)
        throw new UsageError('--delay takes a duration such as 500ms, 5s or 1m.');
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
    args: [{ name: 'id', description: 'agent id (agt_...)' }],
    async run(ctx, [id]) {
      const stubs = await (await ctx.control()).agents.stubs.list.query({ agent_id: id! });
      ctx.out.result(stubs, () =>
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
    args: [{ name: 'id', description: 'agent id (agt_...)' }],
    async run(ctx, [id]) {
      const result = await (await ctx.control()).agents.stubs.clear.mutate({ agent_id: id! });
      ctx.out.result(result, () => `Removed ${result.cleared} stub(s)`);
    },
  }),
]);
