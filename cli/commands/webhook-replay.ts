// svc webhooks replay: a webhook's stored events sent again as new deliveries (same event id
// and body, new delivery ids, the usual retry schedule), e.g. after fixing the receiver.
import { parseDuration } from '../../shared/duration.js';
import {
  REPLAY_LIMIT_DEFAULT,
  REPLAY_LIMIT_MAX,
  type WebhookReplayResult,
} from '../../shared/schemas/replay.js';
import { command, defineCommands } from '../command.js';
import { UsageError } from '../errors.js';
import { chalk, table } from '../output.js';

function isoOption(text: string | undefined, flag: string): string | undefined {
  if (text === undefined) return undefined;
  if (Number.isNaN(Date.parse(text)) || !/\d{4}-\d{2}-\d{2}T/.test(text)) {
    throw new UsageError(
      `${flag} takes an ISO 8601 time such as 2030-01-01T00:00:00Z; got "${text}".`,
    );
  }
  return new Date(text).toISOString();
}

function limitOption(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > REPLAY_LIMIT_MAX) {
    throw new UsageError(
      `--limit takes a whole number from 1 to ${REPLAY_LIMIT_MAX}; got "${text}".`,
    );
  }
  return n;
}

export default defineCommands([
  command({
    path: ['webhooks', 'replay'],
    description:
      "Send a webhook's stored events again as new deliveries (default: those whose delivery failed)",
    args: [{ name: 'id', description: 'webhook id (hook_...)' }],
    options: [
      { flags: '--since <duration>', description: 'deliveries of the last 1h, 2d, ...' },
      { flags: '--from <iso>', description: 'deliveries created at or after this time' },
      { flags: '--to <iso>', description: 'deliveries created at or before this time' },
      {
        flags: '--status <status>',
        description: 'the last delivery of the event was: failed (default), delivered or all',
        choices: ['failed', 'delivered', 'all'] as const,
      },
      { flags: '--event-type <type>', description: 'only events of this type, e.g. agent.created' },
      { flags: '--dry-run', description: 'count the events that would be sent; send nothing' },
      {
        flags: '--limit <n>',
        description: `send at most n events, the oldest first (default ${REPLAY_LIMIT_DEFAULT}, at most ${REPLAY_LIMIT_MAX})`,
      },
      {
        flags: '--list',
        description: 'list each event and its new delivery, not only the summary',
      },
    ],
    examples: [
      'svc webhooks replay hook_... --since 1h',
      'svc webhooks replay hook_... --from 2030-01-01T00:00:00Z --to 2030-01-02T00:00:00Z --status all --dry-run --list',
      'svc webhooks replay hook_... --since 2d --limit 50000',
    ],
    async run(ctx, [id], options) {
      if (options.since !== undefined && options.from !== undefined) {
        throw new UsageError('Give --since or --from/--to, not both.');
      }
      const since = options.since === undefined ? undefined : parseDuration(options.since);
      if (since === null || since === 0)
        throw new UsageError('--since takes a duration such as 30m, 1h or 2d.');
      const from = isoOption(options.from, '--from');
      const to = isoOption(options.to, '--to');
      const limit = limitOption(options.limit);
      const answer: WebhookReplayResult = await (
        await ctx.control()
      ).webhooks.replay.mutate({
        webhook_id: id!,
        ...((options.workspace ?? process.env.SVC_WORKSPACE)
          ? { workspace_id: (options.workspace ?? process.env.SVC_WORKSPACE)! }
          : {}),
        ...(since !== undefined ? { since_ms: since } : {}),
        ...(from ? { from } : {}),
        ...(to ? { to } : {}),
        status: options.status ?? 'failed',
        ...(options.eventType ? { event_type: options.eventType } : {}),
        dry_run: options.dryRun === true,
        ...(limit !== undefined ? { limit } : {}),
        include_deliveries: options.list === true,
      });
      ctx.out.result(answer, () => {
        const lines = (answer.deliveries ?? []).map((d) => [
          d.event_id,
          d.event_type,
          `${d.original_delivery_id} (${d.original_status})`,
          d.delivery_id ?? '-',
        ]);
        const head = answer.dry_run
          ? `${chalk.bold(String(answer.count))} event(s) would be sent again to ${answer.webhook_id}`
          : `Replayed ${chalk.bold(String(answer.count))} event(s) to ${answer.webhook_id}`;
        const span =
          answer.first_event_id === null
            ? ''
            : ` (${answer.first_event_id} .. ${answer.last_event_id})`;
        const rest = answer.truncated
          ? `\n${answer.matched - answer.count} more matched past --limit ${answer.limit}: run the replay again, or raise --limit.`
          : '';
        const summary = `${head}${span}${rest}`;
        return lines.length === 0
          ? summary
          : `${summary}\n${table(['EVENT', 'TYPE', 'WAS', 'NEW DELIVERY'], lines)}`;
      });
    },
  }),
]);
