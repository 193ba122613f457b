// Which dashboard page shows an object, knowing its id alone: the search box and `svc open <id>`
// land there. The dashboard acts as the local operator, so an id of any workspace is found, and
// the page's URL names that workspace.
import { ApiError } from '../domain/errors.js';
import { FINDABLE_PREFIXES, landingPath } from './links.js';
import type { Location } from './answers.js';
import type { DashboardServices } from './deps.js';

type Services = Pick<
  DashboardServices,
  'agents' | 'deliveries' | 'executions' | 'runs' | 'webhooks' | 'workflows' | 'workspaces'
>;

export class Locator {
  constructor(private readonly services: Services) {}

  /**
   * The page of `id`. An id of a kind that has no page is invalid_parameter, an unknown one
   * not_found; both messages say what to give instead.
   */
  locate(id: string): Location {
    const prefix = FINDABLE_PREFIXES.find((candidate) => id.startsWith(candidate));
    if (!prefix || !/^[a-z]+_[A-Za-z0-9]+$/.test(id) || id.length > 100) {
      throw new ApiError(
        'invalid_parameter',
        `"${id.slice(0, 100)}" is not an id the dashboard shows: give a run (wex_), agent execution (exec_), delivery (del_), webhook (hook_), agent (agt_) or workflow (wfl_) id.`,
        { param: 'id' },
      );
    }
    const found = this.find(prefix, id);
    if (!found) {
      throw new ApiError(
        'not_found',
        `No ${KIND_WORDS[prefix]} ${id} in this sandbox (runs and executions are kept 30 days). Check the id, e.g. with: svc workflows list, svc workflows executions wfl_..., svc agents list or svc webhooks list.`,
        { param: 'id' },
      );
    }
    const [kind, workspaceId, page] = found;
    return { id, kind, workspace_id: workspaceId, path: `/ui${page}?ws=${workspaceId}` };
  }

  /** Where a login link lands: the page of `id`, the dashboard path `next`, or the Overview. */
  landing(input: { id?: string | undefined; next?: string | undefined } = {}): string {
    if (input.id !== undefined) return this.locate(input.id).path;
    if (input.next === undefined) return '/ui';
    const path = landingPath(input.next);
    if (!path) {
      throw new ApiError(
        'invalid_parameter',
        `"${input.next.slice(0, 100)}" is not a dashboard page: give a path such as /ui/runs or /ui/runs/wex_... on this daemon.`,
        { param: 'next' },
      );
    }
    return path;
  }

  private find(
    prefix: (typeof FINDABLE_PREFIXES)[number],
    id: string,
  ): [Location['kind'], string, string] | undefined {
    const { agents, deliveries, executions, webhooks } = this.services;
    switch (prefix) {
      case 'wex_': {
        const ws = this.firstWorkspace((wsId) => this.services.runs.detail(wsId, id));
        return ws === undefined ? undefined : ['run', ws, `/runs/${id}`];
      }
      case 'exec_': {
        const owner = executions.owner(id);
        return owner && ['agent_execution', owner.workspace_id, `/executions/${id}`];
      }
      case 'del_': {
        const owner = deliveries.owner(id);
        if (!owner) return undefined;
        return ['delivery', owner.workspace_id, `/webhooks/${owner.webhook_id}/deliveries/${id}`];
      }
      case 'hook_': {
        const ws = this.firstWorkspace((wsId) => webhooks.row(wsId, id));
        return ws === undefined ? undefined : ['webhook', ws, `/webhooks/${id}`];
      }
      case 'agt_': {
        const agent = agents.find(id);
        return agent && ['agent', agent.workspace_id, `/agents/${id}`];
      }
      case 'wfl_': {
        const ws = this.firstWorkspace((wsId) => this.services.workflows.row(wsId, id));
        return ws === undefined ? undefined : ['workflow', ws, `/workflows/${id}`];
      }
    }
  }

  /** The workspace in which `read` finds the object (it throws a not-found error elsewhere). */
  private firstWorkspace(read: (workspaceId: string) => unknown): string | undefined {
    for (const workspace of this.services.workspaces.list()) {
      try {
        read(workspace.id);
        return workspace.id;
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
      }
    }
    return undefined;
  }
}

const KIND_WORDS: Record<(typeof FINDABLE_PREFIXES)[number], string> = {
  wex_: 'workflow run',
  exec_: 'agent execution',
  del_: 'delivery',
  hook_: 'webhook',
  agt_: 'agent',
  wfl_: 'workflow',
};
