// svc webhooks replay: a webhook's stored events sent again as new deliveries (same event id
// and body, new delivery ids, the usual retry schedule), e.g. after fixing the receiver. With
// --wait it returns once each new delivery has had its attempt, saying how they came out.
import { parseDuration } from '../../shared/duration.js';
import {
  REPLAY_LIMIT_DEFAULT,
  REPLAY_LIMIT_MAX,
  type WebhookReplayResult,
} from '../../shared/schemas/replay.js';
import type { DeliveryView } from '../../shared/schemas/webhooks.js';
import { command, defineCommands } from '../command.js';
import type { CliContext } from '../context.js';
import { watchDeliveries, type SettleOutcome } from '../delivery-wait.js';
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

/** The replay's summary, and its table with --list (with each new delivery's outcome after --wait). */
function replayText(answer: WebhookReplayResult, settled?: Map<string, DeliveryView>): string {
  const lines = (answer.deliveries ?? []).map((d) => {
    const row = [
      d.event_id,
      d.event_type,
      `${d.original_delivery_id} (${d.original_status})`,
      d.delivery_id ?? '-',
    ];
    if (!settled) return row;
    const now = d.delivery_id ? settled.get(d.delivery_id) : undefined;
    return [...row, now ? `${now.status} (HTTP ${now.http_status ?? '-'})` : 'held'];
  });
  const head = answer.dry_run
    ? `${chalk.bold(String(answer.count))} event(s) would be sent again to ${answer.webhook_id}`
    : `Replayed ${chalk.bold(String(answer.count))} event(s) to ${answer.webhook_id}`;
  const span =
    answer.first_event_id === null ? '' : ` (${answer.first_event_id} .. ${answer.last_event_id})`;
  const rest = answer.truncated
    ? `\n${answer.matched - answer.count} more matched past --limit ${answer.limit}: run the replay again, or raise --limit.`
    : '';
  const summary = `${head}${span}${rest}`;
  const columns = ['EVENT', 'TYPE', 'WAS', 'NEW DELIVERY', ...(settled ? ['NOW'] : [])];
  return lines.length === 0 ? summary : `${summary}\n${table(columns, lines)}`;
}

function deliveryIds(answer: WebhookReplayResult): string[] {
  return (answer.deliveries ?? []).flatMap((d) => (d.delivery_id ? [d.delivery_id] : []));
}

/**
 * replay --wait: the replay and how each new delivery's attempt came out. Exit 1 unless every
 * one was delivered; 130 when the user stopped waiting.
 */
function reportSettled(
  ctx: CliContext,
  answer: WebhookReplayResult,
  outcome: SettleOutcome,
  list: boolean | undefined,
): void {
  const settled = new Map(outcome.deliveries.map((d) => [d.id, d]));
  const count = (status: string) =>
    outcome.deliveries.filter((d) => d.status === status && !outcome.held.includes(d.id)).length;
  const tally = {
    delivered: count('delivered'),
    failed: count('failed'),
    pending: count('pending'),
    held: outcome.held.length,
  };
  const words = [
    `${tally.delivered} delivered`,
    `${tally.failed} failed`,
    `${tally.pending} pending (attempted, next attempt scheduled)`,
    ...(tally.held ? [`${tally.held} held`] : []),
  ].join(', ');
  ctx.out.result(
    {
      ...answer,
      ...(list === true ? {} : { deliveries: undefined }),
      outcome: {
        ...tally,
        webhook_status: outcome.webhookStatus ?? 'active',
        deliveries: outcome.deliveries,
        held_delivery_ids: outcome.held,
      },
    },
    () => `${replayText(answer, list === true ? settled : undefined)}\nOutcome: ${words}`,
  );
  if (outcome.interrupted) {
    ctx.out.note(
      'Stopped waiting; the replayed deliveries go on (svc webhooks deliveries shows them).',
    );
    process.exitCode = 130;
    return;
  }
  if (outcome.webhookStatus !== undefined && outcome.held.length > 0) {
    ctx.out.note(
      `Webhook ${answer.webhook_id} is ${outcome.webhookStatus}: it holds ${outcome.held.length} of the replayed deliveries. Resume it with: svc webhooks update ${answer.webhook_id} --status active`,
    );
  }
  const notDelivered = outcome.deliveries.find((d) => d.status !== 'delivered');
  if (notDelivered) ctx.out.note(`See its attempts with: svc webhooks delivery ${notDelivered.id}`);
  if (tally.delivered < answer.count) process.exitCode = 1;
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
      {
        flags: '--wait',
        description:
          'return when each new delivery has had its attempt, with the outcome (exit 1 unless all were delivered)',
      },
    ],
    examples: [
      'svc webhooks replay hook_... --since 1h',
      'svc webhooks replay hook_... --from 2030-01-01T00:00:00Z --to 2030-01-02T00:00:00Z --status all --dry-run --list',
      'svc webhooks replay hook_... --since 2d --limit 50000',
      'svc webhooks replay hook_... --since 1h --wait',
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
      const wait = options.wait === true;
      if (wait && options.dryRun === true)
        throw new UsageError('--dry-run sends nothing, so --wait has nothing to wait for.');
      // Open before the replay, so that no attempt of its deliveries goes unseen.
      const watch = wait ? await watchDeliveries(ctx, id!) : undefined;
      let answer: WebhookReplayResult;
      try {
        answer = await (
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
          // --wait needs the new deliveries' ids.
          include_deliveries: options.list === true || wait,
        });
      } catch (error) {
        watch?.close();
        throw error;
      }
      if (watch) {
        try {
          reportSettled(ctx, answer, await watch.settle(deliveryIds(answer)), options.list);
        } finally {
          watch.close();
        }
        return;
      }
      ctx.out.result(answer, () => replayText(answer));
    },
  }),
]);
