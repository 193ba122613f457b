// The ids `svc __complete` offers: the newest page of workflows, agents or webhooks in the
// workspace the CLI acts in, or a workflow's newest runs. One request each, so a TAB stays quick.
import { apiPath } from './api-commands.js';
import type { CliContext } from './context.js';

const PAGE = { limit: 100 };

async function ids(ctx: CliContext, path: string, field: string): Promise<string[]> {
  const items = await (
    await ctx.api()
  ).data<Record<string, unknown>[]>('GET', path, { query: PAGE });
  return items.map((item) => item[field]).filter((id): id is string => typeof id === 'string');
}

export async function listIds(
  ctx: CliContext,
  kind: string,
  workflow: string | undefined,
): Promise<string[]> {
  switch (kind) {
    case 'workflows':
    case 'agents':
    case 'webhooks':
      return ids(ctx, `/${kind}`, 'id');
    case 'objects': {
      // svc open takes any of them.
      const lists = await Promise.all(
        ['workflows', 'agents', 'webhooks'].map((name) => ids(ctx, `/${name}`, 'id')),
      );
      return lists.flat();
    }
    case 'runs':
      return workflow?.startsWith('wfl_')
        ? ids(ctx, apiPath('workflows', workflow, 'executions'), 'execution_id')
        : [];
    default:
      return [];
  }
}
