// svc workflows trigger ID | trigger-url ID: start a webhook-triggered workflow through its hook
// (signed with the trigger's stored secret when it has one), and the hook's address with a
// request that works as printed.
import { FOLLOW_TIMEOUT_OPTION, followTimeoutMs } from '../bounded-flags.js';
import { command, defineCommands, stringOption } from '../command.js';
import type { CliContext } from '../context.js';
import type { Hook } from '../hook-trigger.js';
import { chalk, chalkStderr } from '../output.js';

const WORKFLOW_ID = { name: 'id', description: 'workflow id (wfl_...)' };
const EXAMPLE_BODY = '{}';

export default defineCommands([
  command({
    path: ['workflows', 'trigger'],
    description:
      "Start a webhook-triggered workflow through its hook, signed with the trigger's secret when it has one",
    args: [WORKFLOW_ID],
    options: [
      {
        flags: '--data <json>',
        description: 'the request body: JSON, or @file.json (sent as is; default {})',
      },
      {
        flags: '--wait',
        description: 'follow the run live to its end, as run --wait (exit 1 if it fails)',
      },
      FOLLOW_TIMEOUT_OPTION,
    ],
    examples: [
      `svc workflows trigger wfl_... --data '{"alert": "error rate 12%", "service": "checkout"}'`,
      'svc workflows trigger wfl_... --data @alert.json --wait --json',
    ],
    async run(ctx, [id], options) {
      const timeoutMs = followTimeoutMs(options.timeout, options.wait === true);
      const { findHook, readHookBody, triggerHook } = await import('../hook-trigger.js');
      const body = await readHookBody(stringOption(options, 'data'));
      const hook = await findHook(ctx, id!);
      const how = `by a ${hook.signed ? 'signed ' : ''}POST to hook ${hook.path}`;
      if (options.wait === true) {
        const { followToEnd } = await import('../run-wait.js');
        await followToEnd(ctx, {
          workflowId: hook.workflow.id,
          endWhenParked: true,
          ...(timeoutMs === undefined ? {} : { timeoutMs }),
          origin: `started ${how}`,
          start: () => triggerHook(ctx, hook, body),
        });
        return;
      }
      const executionId = await triggerHook(ctx, hook, body);
      ctx.out.result(
        {
          execution_id: executionId,
          workflow_id: hook.workflow.id,
          path: hook.path,
          signed: hook.signed,
        },
        () => `Started run ${chalk.cyan(executionId)} ${how}`,
      );
      ctx.out.note(chalkStderr.dim(`Follow it with: svc workflows watch ${executionId}`));
    },
  }),
  command({
    path: ['workflows', 'trigger-url'],
    description: "Print a webhook-triggered workflow's URL (POST to it to start a run)",
    args: [WORKFLOW_ID],
    async run(ctx, [id]) {
      const { findHook } = await import('../hook-trigger.js');
      const hook = await findHook(ctx, id!);
      const { workflow, url, path, signed } = hook;
      const trigger = `svc workflows trigger ${workflow.id} --data '${EXAMPLE_BODY}'`;
      const curl = workflow.status === 'active' ? await exampleCurl(ctx, hook) : null;
      ctx.out.result(
        { workflow_id: workflow.id, url, path, signed, status: workflow.status, trigger, curl },
        () => url,
      );
      // The URL alone on stdout (url=$(svc workflows trigger-url ...)); the hints on stderr.
      ctx.out.note(
        chalkStderr.dim(
          workflow.status !== 'active'
            ? `The workflow is ${workflow.status}: it answers 409 until: svc workflows activate ${workflow.id}`
            : [
                `Start a run with: ${trigger}${signed ? ' (signs with the trigger secret)' : ''}`,
                curl === null
                  ? 'Requests must carry X-Svc-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed by the trigger secret>.'
                  : `or: ${curl}${signed ? '  (signed now: works once, within 5 minutes)' : ''}`,
              ].join('\n'),
        ),
      );
    },
  }),
]);

/**
 * A curl that works as printed: unsigned, or signed now by the daemon for the example body.
 * Null for a signed hook when the control channel cannot sign (--api-key without the daemon's
 * control token).
 */
async function exampleCurl(ctx: CliContext, hook: Hook): Promise<string | null> {
  const { shellQuote, signBody } = await import('../hook-trigger.js');
  let signature = '';
  if (hook.signed) {
    try {
      signature = ` -H ${shellQuote(`X-Svc-Signature: ${await signBody(ctx, hook, EXAMPLE_BODY)}`)}`;
    } catch {
      return null;
    }
  }
  return `curl -X POST -H 'content-type: application/json'${signature} -d ${shellQuote(EXAMPLE_BODY)} ${hook.url}`;
}
