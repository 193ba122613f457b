// svc webhooks replay: a webhook's stored events sent again as new deliveries (same event id
// and body, new delivery ids, the usual retry schedule), e.g. after fixing the receiver.
import { parseDuration } from '../../shared/duration.js';
import type { WebhookReplayResult } from '../../shared/schemas/replay.js';
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
      { flags: '--dry-run', description: 'list the events that would be sent; send nothing' },
    ],
    examples: [
      'svc webhooks replay hook_... --since 1h',
      'svc webhooks replay hook_... --from 2030-01-01T00:00:00Z --to 2030-01-02T00:00:00Z --status all --dry-run',
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
      });
      ctx.out.result(answer, () => {
        const lines = answer.deliveries.map((d) => [
          d.event_id,
          d.event_type,
          `${d.original_delivery_id} (${d.original_status})`,
          d.delivery_id ?? '-',
        ]);
        const head = answer.dry_run
          ? `${chalk.bold(String(answer.count))} event(s) would be sent again to ${answer.webhook_id}`
          : `Replayed ${chalk.bold(String(answer.count))} event(s) to ${answer.webhook_id}`;
        return lines.length === 0
          ? head
          : `${head}\n${table(['EVENT', 'TYPE', 'WAS', 'NEW DELIVERY'], lines)}`;
      });
    },
  }),
]);
