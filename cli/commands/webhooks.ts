// svc webhooks create|list|get|update|delete|test|deliveries|delivery|retry|tail
import { apiCommand, apiPath, listCommand, PAGE_OPTIONS } from '../api-commands.js';
import { command, defineCommands, group, stringOption, type Options } from '../command.js';
import type { CliContext } from '../context.js';
import { formatDuration } from '../../shared/duration.js';
import { UsageError } from '../errors.js';
import {
  DELIVERY_STATUSES,
  WEBHOOK_STATUSES,
  WEBHOOK_UPDATE_STATUSES,
} from '../../shared/schemas/enums.js';
import type { DeletedView } from '../../shared/schemas/common.js';
import type {
  DeliveryActivity,
  DeliveryDetailView,
  DeliveryView,
  WebhookTestResultView,
  WebhookView,
} from '../../shared/schemas/webhooks.js';
import { streamUntilInterrupted } from '../stream.js';
import { chalk } from '../output.js';
import {
  attemptSucceeded,
  deliveryState,
  deliveryStatusColour,
  deliveryStatusText,
  describeAttempt,
  describeDelivery,
  releaseHint,
} from '../delivery-text.js';

function integerOption(options: Options, name: string, flag: string): number | undefined {
  const text = stringOption(options, name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isFinite(value)) throw new UsageError(`${flag} takes a number (got "${text}").`);
  return value;
}

function settingsFrom(options: Options) {
  const maxAttempts = integerOption(options, 'maxAttempts', '--max-attempts');
  const backoff = integerOption(options, 'backoffMultiplier', '--backoff-multiplier');
  const timeout = integerOption(options, 'timeout', '--timeout');
  const retryPolicy = {
    ...(maxAttempts === undefined ? {} : { max_attempts: maxAttempts }),
    ...(backoff === undefined ? {} : { backoff_multiplier: backoff }),
  };
  const settings = {
    ...(Object.keys(retryPolicy).length ? { retry_policy: retryPolicy } : {}),
    ...(timeout === undefined ? {} : { timeout_seconds: timeout }),
  };
  return Object.keys(settings).length ? settings : undefined;
}

function eventsFrom(options: Options): string[] | undefined {
  return stringOption(options, 'events')
    ?.split(/[\s,]+/)
    .filter(Boolean);
}

const settingOptions = [
  { flags: '--max-attempts <n>', description: 'delivery attempts in all (default 5)' },
  {
    flags: '--backoff-multiplier <x>',
    description: 'growth of delays past the 5th attempt (default 2)',
  },
  { flags: '--timeout <seconds>', description: 'seconds the receiver has to answer (default 10)' },
];

const statusColour = deliveryStatusColour;

function describeWebhook(hook: WebhookView): string {
  return [
    `${chalk.cyan(hook.id)} ${statusColour(hook.status)} ${hook.url}`,
    `events:   ${hook.events.join(', ')}`,
    `retries:  ${hook.settings.retry_policy.max_attempts} attempts, x${hook.settings.retry_policy.backoff_multiplier}; timeout ${formatDuration(hook.settings.timeout_seconds * 1000)}`,
    `stats:    ${hook.stats.total_deliveries} deliveries, success ${(hook.stats.success_rate * 100).toFixed(1)}%, last failure ${hook.stats.last_failure_at ?? 'never'}`,
  ].join('\n');
}

const WEBHOOK_ID = { name: 'id', description: 'webhook id (hook_...)' };
/** `<delivery> [id]`: a delivery id alone (ids are unique), or the webhook id then it. */
const DELIVERY_TARGET_ARGS = [
  {
    name: 'delivery',
    description: 'delivery id (del_...), or the webhook id then the delivery id',
  },
  { name: 'id', description: 'the delivery id, after a webhook id', required: false },
];

/** The delivery a command acts on; its webhook from GET /v1/deliveries/{id} when not given. */
async function deliveryTarget(
  ctx: CliContext,
  [first, second]: string[],
): Promise<{ webhookId: string; deliveryId: string; delivery?: DeliveryDetailView }> {
  if (first && second) return { webhookId: first, deliveryId: second };
  if (!first || first.startsWith('hook_'))
    throw new UsageError(
      `Missing the delivery id (del_...). List a webhook's deliveries with: svc webhooks deliveries ${first ?? 'hook_...'}`,
    );
  const delivery = await (
    await ctx.api()
  ).data<DeliveryDetailView>('GET', apiPath('deliveries', first));
  return { webhookId: delivery.webhook_id, deliveryId: delivery.id, delivery };
}

async function readDelivery(ctx: CliContext, args: string[]): Promise<DeliveryDetailView> {
  const target = await deliveryTarget(ctx, args);
  return (
    target.delivery ??
    (await (
      await ctx.api()
    ).data<DeliveryDetailView>(
      'GET',
      apiPath('webhooks', target.webhookId, 'deliveries', target.deliveryId),
    ))
  );
}

export default defineCommands([
  group(['webhooks'], 'Webhook subscriptions, deliveries, test, retry and live tail'),
  command({
    path: ['webhooks', 'create'],
    description: 'Subscribe a URL to event types; prints the signing secret once',
    options: [
      {
        flags: '--url <url>',
        description: 'receiver URL (https://; http:// allowed in the sandbox)',
      },
      {
        flags: '--events <types>',
        description: 'comma-separated event types, e.g. agent.created,workflow.execution.failed',
      },
      { flags: '--description <text>', description: 'what it is for' },
      ...settingOptions,
    ],
    examples: [
      'svc webhooks create --url http://localhost:4000/hooks --events agent.created,agent.updated --json',
    ],
    async run(ctx, _args, options) {
      const url = options.url;
      const events = eventsFrom(options);
      if (!url) throw new UsageError('Missing --url: the receiver URL.');
      if (!events?.length) throw new UsageError('Missing --events: comma-separated event types.');
      const hook = await (
        await ctx.api()
      ).data<WebhookView>('POST', '/webhooks', {
        body: {
          url,
          events,
          description: options.description,
          settings: settingsFrom(options),
        },
      });
      ctx.out.result(hook, () =>
        [
          describeWebhook(hook),
          '',
          `signing secret: ${chalk.bold(hook.secret ?? '')}`,
          chalk.yellow('The secret is shown only this once.'),
        ].join('\n'),
      );
    },
  }),
  listCommand({
    path: ['webhooks', 'list'],
    description: 'List webhooks',
    options: [
      { flags: '--status <status>', description: 'webhook status', values: WEBHOOK_STATUSES },
      ...PAGE_OPTIONS,
    ],
    endpoint: () => '/webhooks',
    query: (options) => ({ status: options.status }),
    columns: ['ID', 'STATUS', 'URL', 'EVENTS', 'DELIVERIES'],
    row: (hook: WebhookView) => [
      hook.id,
      statusColour(hook.status),
      hook.url,
      hook.events.join(','),
      String(hook.stats.total_deliveries),
    ],
  }),
  apiCommand({
    path: ['webhooks', 'get'],
    description: 'Show a webhook',
    args: [WEBHOOK_ID],
    endpoint: ([id]) => apiPath('webhooks', id!),
    print: describeWebhook,
  }),
  apiCommand({
    path: ['webhooks', 'update'],
    description: 'Change a webhook (status active resumes a paused or failed one)',
    args: [WEBHOOK_ID],
    options: [
      { flags: '--url <url>', description: 'new receiver URL' },
      { flags: '--events <types>', description: 'new comma-separated event types' },
      {
        flags: '--status <status>',
        description: 'pause, or resume a paused or failed webhook',
        choices: WEBHOOK_UPDATE_STATUSES,
      },
      { flags: '--description <text>', description: 'what it is for' },
      ...settingOptions,
    ],
    method: 'PATCH',
    endpoint: ([id]) => apiPath('webhooks', id!),
    request: (_args, options) => ({
      body: {
        url: options.url,
        events: eventsFrom(options),
        status: options.status,
        description: options.description,
        settings: settingsFrom(options),
      },
    }),
    print: describeWebhook,
  }),
  apiCommand({
    path: ['webhooks', 'delete'],
    description: 'Delete a webhook',
    args: [WEBHOOK_ID],
    method: 'DELETE',
    endpoint: ([id]) => apiPath('webhooks', id!),
    print: (result: DeletedView) => `Deleted webhook ${result.id}`,
  }),
  command({
    path: ['webhooks', 'test'],
    description: 'Send a sample event to the webhook now',
    args: [WEBHOOK_ID],
    options: [
      {
        flags: '--event-type <type>',
        description: 'event type of the sample',
        default: 'agent.created',
      },
    ],
    async run(ctx, [id], options) {
      const result = await (
        await ctx.api()
      ).data<WebhookTestResultView>('POST', apiPath('webhooks', id!, 'test'), {
        body: { event_type: options.eventType },
      });
      ctx.out.result(
        result,
        () =>
          `${statusColour(result.status)} HTTP ${result.http_status ?? '-'} in ${result.response_time_ms} ms${result.error ? ` (${result.error})` : ''}`,
      );
      if (result.status !== 'delivered') process.exitCode = 1;
    },
  }),
  listCommand({
    path: ['webhooks', 'deliveries'],
    description: 'List the deliveries of a webhook, newest first',
    args: [WEBHOOK_ID],
    options: [
      { flags: '--status <status>', description: 'delivery status', values: DELIVERY_STATUSES },
      ...PAGE_OPTIONS,
    ],
    endpoint: ([id]) => apiPath('webhooks', id!, 'deliveries'),
    query: (options) => ({ status: options.status }),
    columns: ['ID', 'EVENT', 'STATUS', 'HTTP', 'ATTEMPTS', 'NEXT ATTEMPT'],
    row: (d: DeliveryView) => [
      d.id,
      d.event_type,
      deliveryStatusText(d),
      String(d.http_status ?? '-'),
      String(d.attempts),
      d.next_attempt_at ?? '-',
    ],
    hint(deliveries, [id]) {
      const held = deliveries.filter((d) => d.held);
      if (held.length === 0) return undefined;
      return `${held.length} held: webhook ${id!} is paused or failed, so nothing is attempted. ${releaseHint(id!, held[0]!.id)}.`;
    },
  }),
  command({
    path: ['webhooks', 'delivery'],
    description:
      'Show a delivery with every attempt: time, answer, duration, injected fault, signature sent, start of the answer',
    args: DELIVERY_TARGET_ARGS,
    examples: ['svc webhooks delivery del_...', 'svc webhooks delivery del_... --json'],
    async run(ctx, args) {
      const delivery = await readDelivery(ctx, args);
      ctx.out.result(delivery, () => describeDelivery(delivery));
    },
  }),
  command({
    path: ['webhooks', 'retry'],
    description: 'Redeliver a delivery now (one attempt; the command returns when it has ended)',
    args: DELIVERY_TARGET_ARGS,
    options: [
      {
        flags: '--wait',
        description: 'print the attempt in full and exit 1 unless the receiver took it (2xx)',
      },
    ],
    examples: ['svc webhooks retry del_... --wait', 'svc webhooks retry hook_... del_...'],
    async run(ctx, args, options) {
      const { webhookId, deliveryId } = await deliveryTarget(ctx, args);
      const result = await (
        await ctx.api()
      ).data<DeliveryDetailView>(
        'POST',
        apiPath('webhooks', webhookId, 'deliveries', deliveryId, 'retry'),
      );
      const attempt = result.attempts_history.at(-1);
      if (options.wait !== true) {
        ctx.out.result(
          result,
          () =>
            `${statusColour(result.status)} HTTP ${result.http_status ?? '-'} after ${result.attempts} attempt(s)${result.error ? ` (${result.error})` : ''}`,
        );
        return;
      }
      ctx.out.result(result, () =>
        [
          `${chalk.cyan(result.id)} ${deliveryState(result)}`,
          attempt ? describeAttempt(attempt) : '',
        ].join('\n'),
      );
      if (!attempt || !attemptSucceeded(attempt)) {
        ctx.out.note(`See every attempt with: svc webhooks delivery ${result.id}`);
        process.exitCode = 1;
      }
    },
  }),
  command({
    path: ['webhooks', 'tail'],
    description: 'Stream delivery attempts live (Ctrl-C to stop)',
    options: [{ flags: '--webhook <id>', description: 'only this webhook' }],
    async run(ctx, _args, options) {
      const control = await ctx.control();
      const webhookId = options.webhook;
      const workspace = options.workspace;
      ctx.out.note(chalk.dim('Watching deliveries (Ctrl-C to stop)...'));
      await streamUntilInterrupted<DeliveryActivity>(
        (handlers) =>
          control.deliveries.stream.subscribe(
            {
              ...(webhookId ? { webhook_id: webhookId } : {}),
              ...(workspace ? { workspace_id: workspace } : {}),
            },
            handlers,
          ),
        (activity) => {
          const d = activity.delivery;
          ctx.out.line(activity, () =>
            [
              chalk.dim(d.last_attempt_at ?? d.created_at),
              chalk.cyan(d.event_type.padEnd(34)),
              activity.webhook_id,
              statusColour(d.status).padEnd(9),
              `HTTP ${d.http_status ?? '-'}`,
              `${d.response_time_ms ?? '-'} ms`,
              `attempt ${d.attempts}`,
              d.error ? chalk.red(d.error) : '',
            ].join('  '),
          );
        },
      );
    },
  }),
]);
