// svc webhooks create|list|get|update|delete|test|deliveries|delivery|retry|tail
import { apiCommand, apiPath, listCommand, PAGE_OPTIONS } from '../api-commands.js';
import { command, defineCommands, group, stringOption, type Options } from '../command.js';
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
  DeliveryView,
  WebhookTestResultView,
  WebhookView,
} from '../../shared/schemas/webhooks.js';
import { streamUntilInterrupted } from '../stream.js';
import { chalk } from '../output.js';

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

function statusColour(status: string): string {
  if (status === 'delivered' || status === 'active') return chalk.green(status);
  if (status === 'pending' || status === 'paused') return chalk.yellow(status);
  return chalk.red(status);
}

function describeWebhook(hook: WebhookView): string {
  return [
    `${chalk.cyan(hook.id)} ${statusColour(hook.status)} ${hook.url}`,
    `events:   ${hook.events.join(', ')}`,
    `retries:  ${hook.settings.retry_policy.max_attempts} attempts, x${hook.settings.retry_policy.backoff_multiplier}; timeout ${formatDuration(hook.settings.timeout_seconds * 1000)}`,
    `stats:    ${hook.stats.total_deliveries} deliveries, success ${(hook.stats.success_rate * 100).toFixed(1)}%, last failure ${hook.stats.last_failure_at ?? 'never'}`,
  ].join('\n');
}

const WEBHOOK_ID = { name: 'id', description: 'webhook id (hook_...)' };

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
      statusColour(d.status),
      String(d.http_status ?? '-'),
      String(d.attempts),
      d.next_attempt_at ?? '-',
    ],
  }),
  apiCommand({
    path: ['webhooks', 'retry'],
    description: 'Redeliver a delivery now',
    args: [
      { name: 'webhook', description: 'webhook id (hook_...)' },
      { name: 'delivery', description: 'delivery id (del_...)' },
    ],
    method: 'POST',
    endpoint: ([webhook, delivery]) =>
      apiPath('webhooks', webhook!, 'deliveries', delivery!, 'retry'),
    print: (result: DeliveryView) =>
      `${statusColour(result.status)} HTTP ${result.http_status ?? '-'} after ${result.attempts} attempt(s)${result.error ? ` (${result.error})` : ''}`,
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
