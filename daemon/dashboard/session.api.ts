// What the page asks first: its CSRF token, the daemon's environment and version, and the
// workspaces it may show (in the view `svc workspaces list` prints, workspaces/workspace.view.ts).
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { WorkspaceView } from '../../shared/schemas/control-output.js';
import type { DaemonStatus } from '../control/deps.js';
import { workspaceView } from '../workspaces/workspace.view.js';
import { route, WorkspaceQuery, type ApiKit } from './api-kit.js';
import type { DashboardServices } from './deps.js';
import type { DashboardSession } from './sessions.js';

export const sessionRoutes = {
  'GET /session': route(
    WorkspaceQuery,
    z.object({
      /** Sent back as X-CSRF-Token with every POST of this session. */
      csrf_token: z.string(),
      environment: z.enum(['sandbox', 'production']),
      version: z.string(),
      default_workspace_id: z.string(),
      workspaces: z.array(WorkspaceView),
    }),
  ),
};

export function sessionApi(
  kit: ApiKit,
  services: DashboardServices,
  daemonStatus: () => DaemonStatus,
  sessionOf: (request: FastifyRequest) => DashboardSession,
): void {
  kit.serve(sessionRoutes, {
    'GET /session': (_input, _workspaceId, request) => {
      const status = daemonStatus();
      return {
        csrf_token: sessionOf(request).csrfToken,
        environment: status.environment,
        version: status.version,
        default_workspace_id: status.default_workspace_id,
        workspaces: services.workspaces
          .list()
          .map((ws) => workspaceView(ws, status.default_workspace_id)),
      };
    },
  });
}
