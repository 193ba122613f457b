// The ids `svc __complete` offers: the newest page of workflows, agents or webhooks in the
// workspace the CLI acts in, or a workflow's newest runs. One request each, so a TAB stays quick.
// A daemon's answer is data: only words of svc's id grammar (prefix + base62, shared/ids.ts) for
// the kind asked are printed, so nothing a daemon (or a snapshot it imported) holds can reach the
// shell as anything but an id (issue 51).
import { isIdOf, type IdKind } from '../shared/ids.js';
import { apiPath } from './api-commands.js';
import type { CliContext } from './context.js';

const PAGE = { limit: 100 };

async function ids(ctx: CliContext, path: string, field: string, kind: IdKind): Promise<string[]> {
  const items = await (
    await ctx.api()
  ).data<Record<string, unknown>[]>('GET', path, { query: PAGE });
  if (!Array.isArray(items)) return [];
  return items.map((item) => item?.[field]).filter((id) => isIdOf(kind, id));
}

const LISTS = {
  workflows: 'workflow',
  agents: 'agent',
  webhooks: 'webhook',
} as const satisfies Record<string, IdKind>;

export async function listIds(
  ctx: CliContext,
  kind: string,
  workflow: string | undefined,
): Promise<string[]> {
  switch (kind) {
    case 'workflows':
    case 'agents':
    case 'webhooks':
      return ids(ctx, `/${kind}`, 'id', LISTS[kind]);
    case 'objects': {
      // svc open takes any of them.
      const lists = await Promise.all(
        Object.entries(LISTS).map(([name, idKind]) => ids(ctx, `/${name}`, 'id', idKind)),
      );
      return lists.flat();
    }
    case 'runs':
      return isIdOf('workflow', workflow)
        ? ids(
            ctx,
            apiPath('workflows', workflow, 'executions'),
            'execution_id',
            'workflowExecution',
          )
        : [];
    default:
      return [];
  }
}
