// svc events list|get|tail, and svc whoami
import type { MeView } from '../../shared/schemas/auth.js';
import type { EventEnvelope } from '../../shared/schemas/events.js';
import { apiCommand, apiPath, listCommand } from '../api-commands.js';
import { command, defineCommands, group } from '../command.js';
import { UsageError } from '../errors.js';
import { streamUntilInterrupted } from '../stream.js';
import { chalk } from '../output.js';

export default defineCommands([
  group(['events'], 'The event log: list, get, tail, trigger'),
  listCommand({
    path: ['events', 'list'],
    description: 'List stored events, newest first',
    options: [
      {
        flags: '--type <types>',
        description: 'event types or prefixes, comma-separated (agent.*)',
      },
      { flags: '--limit <n>', description: 'page size, 1-100', default: '20' },
      {
        flags: '--starting-after <id>',
        description: 'cursor: the last event id of the previous page',
      },
    ],
    endpoint: () => '/events',
    query: (options) => ({ type: options.type }),
    columns: ['ID', 'TYPE', 'CREATED'],
    row: (event: EventEnvelope) => [event.id, event.type, event.created_at],
    nextPageHint: true,
  }),
  apiCommand({
    path: ['events', 'get'],
    description: 'Show one event',
    args: [{ name: 'id', description: 'event id (evt_...)' }],
    endpoint: ([id]) => apiPath('events', id!),
    print: (event: EventEnvelope) => JSON.stringify(event, null, 2),
  }),
  command({
    path: ['events', 'tail'],
    description: 'Stream events live as they are published (Ctrl-C to stop)',
    options: [
      { flags: '--events <types>', description: 'only these types or prefixes, comma-separated' },
    ],
    async run(ctx, _args, options) {
      const types = options.events
        ?.split(',')
        .map((t) => t.trim())
        .filter(Boolean);
      if (types && types.length === 0) throw new UsageError('--events needs at least one type.');
      const workspace = options.workspace;
      const control = await ctx.control();
      ctx.out.note(chalk.dim('Waiting for events (Ctrl-C to stop)...'));
      await streamUntilInterrupted<EventEnvelope>(
        (handlers) =>
          control.events.stream.subscribe(
            { ...(workspace ? { workspace_id: workspace } : {}), ...(types ? { types } : {}) },
            handlers,
          ),
        (event) =>
          ctx.out.line(
            event,
            () =>
              `${chalk.dim(event.created_at)} ${chalk.cyan(event.type.padEnd(34))} ${event.id} ${chalk.dim(event.workspace_id)}`,
          ),
      );
    },
  }),
  command({
    path: ['events', 'trigger'],
    description: 'Publish a realistic sample event of a type (sandbox only)',
    args: [{ name: 'type', description: 'event type, e.g. agent.created' }],
    options: [
      {
        flags: '--data <json>',
        description: 'use this JSON object as the event data instead of the sample',
      },
    ],
    examples: ['svc events trigger workflow.execution.completed --json'],
    async run(ctx, [type], options) {
      const { isEventType, EVENT_TYPES } = await import('../../shared/schemas/events.js');
      if (!isEventType(type!))
        throw new UsageError(`Unknown event type "${type}". One of: ${EVENT_TYPES.join(', ')}`);
      const dataText = options.data;
      let data: Record<string, unknown> | undefined;
      if (dataText !== undefined) {
        try {
          data = JSON.parse(dataText) as Record<string, unknown>;
        } catch {
          throw new UsageError('--data must be a JSON object.');
        }
        if (!data || typeof data !== 'object' || Array.isArray(data))
          throw new UsageError('--data must be a JSON object.');
      }
      const workspace = options.workspace;
      const event = await (
        await ctx.control()
      ).events.trigger.mutate({
        type,
        ...(workspace ? { workspace_id: workspace } : {}),
        ...(data ? { data } : {}),
      });
      ctx.out.result(event, () => `Published ${chalk.cyan(event.type)} ${event.id}`);
    },
  }),
  command({
    path: ['whoami'],
    description: 'Show the credential the CLI uses (GET /v1/auth/me)',
    async run(ctx) {
      const me = await (await ctx.api()).data<MeView>('GET', '/auth/me');
      ctx.out.result(me, () =>
        Object.entries(me)
          .map(
            ([key, value]) =>
              `${key.padEnd(16)} ${Array.isArray(value) ? value.join(' ') : String(value)}`,
          )
          .join('\n'),
      );
    },
  }),
]);
