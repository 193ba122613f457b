// svc listen --forward-to URL: forwards the workspace's events, signed, to a local URL as they
// happen and prints each with the receiver's answer (like `stripe listen`). The signing secret
// is stable per data dir and printed at start.
import { command, defineCommands } from '../command.js';
import { UsageError } from '../errors.js';
import type { EventEnvelope } from '../../shared/schemas/events.js';
import { streamUntilInterrupted } from '../stream.js';
import { chalk } from '../output.js';

export default defineCommands([
  command({
    path: ['listen'],
    description: 'Forward live events, signed, to a local URL (Ctrl-C to stop)',
    options: [
      {
        flags: '--forward-to <url>',
        description: 'where to POST each event, e.g. http://localhost:4000/webhooks',
      },
      {
        flags: '--events <types>',
        description: 'only these types or prefixes, comma-separated (agent.*)',
      },
    ],
    examples: [
      'svc listen --forward-to http://localhost:4000/webhooks --events agent.*,workflow.execution.failed',
    ],
    async run(ctx, _args, options) {
      const target = options.forwardTo;
      if (!target) throw new UsageError('Missing --forward-to: the local URL to POST events to.');
      let url: URL;
      try {
        url = new URL(target);
      } catch {
        throw new UsageError(`--forward-to must be an absolute http(s) URL (got "${target}").`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new UsageError('--forward-to must be an http:// or https:// URL.');
      const types = options.events
        ?.split(',')
        .map((type) => type.trim())
        .filter(Boolean);

      const [{ listenSecret }, { postJson }, { signatureHeader }, { newId }] = await Promise.all([
        import('../state.js'),
        import('../../shared/post-json.js'),
        import('../../shared/signature.js'),
        import('../../shared/ids.js'),
      ]);
      const secret = await listenSecret(ctx.dataDir);
      const api = await ctx.api();
      const control = await ctx.control();
      ctx.out.note(
        `Ready! Forwarding events to ${chalk.cyan(url.toString())}. Your webhook signing secret is ${chalk.bold(secret)} (Ctrl-C to stop)`,
      );

      await streamUntilInterrupted<EventEnvelope>(
        (handlers) =>
          control.events.stream.subscribe(
            {
              ...(api.tenantId ? { workspace_id: api.tenantId } : {}),
              ...(types?.length ? { types } : {}),
            },
            handlers,
          ),
        (event) => {
          const body = JSON.stringify(event);
          const deliveryId = newId('delivery');
          void postJson(
            url.toString(),
            body,
            {
              'x-svc-signature': signatureHeader(secret, body),
              'x-svc-event-id': event.id,
              'x-svc-event-type': event.type,
              'x-svc-delivery-id': deliveryId,
            },
            10_000,
          ).then((result) => {
            const record = {
              event_id: event.id,
              event_type: event.type,
              http_status: result.status,
              response_time_ms: result.timeMs,
              error: result.error,
            };
            ctx.out.line(record, () =>
              [
                chalk.dim(event.created_at),
                '-->',
                chalk.cyan(event.type.padEnd(34)),
                event.id,
                result.ok
                  ? chalk.green(`[${result.status}]`)
                  : chalk.red(`[${result.status ?? 'ERR'}]`),
                `${result.timeMs} ms`,
                result.error ? chalk.red(result.error) : '',
              ].join(' '),
            );
          });
        },
      );
    },
  }),
]);
