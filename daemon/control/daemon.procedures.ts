// The daemon itself (svc daemon status|stop, svc status) and the operator's own credential
// (what the CLI calls the REST API with).
import {
  DaemonStatus,
  OperatorCredential,
  SandboxStatus,
  ShutdownAnswer,
} from '../../shared/schemas/control-output.js';
import type { ControlDeps } from './deps.js';
import { operator, t } from './procedure.js';
import { sandboxStatus } from './sandbox-status.js';

export function daemonProcedures(deps: ControlDeps) {
  const { daemon, keys, workspaces } = deps;
  return {
    daemon: t.router({
      status: operator.output(DaemonStatus).query(() => daemon.status()),
      /** svc status: the daemon, clock, brain and counts of what is under way. */
      overview: operator.output(SandboxStatus).query(() => sandboxStatus(deps)),
      shutdown: operator.output(ShutdownAnswer).mutation(() => {
        daemon.requestShutdown();
        return { stopping: true };
      }),
    }),
    auth: t.router({
      operatorCredential: operator.output(OperatorCredential).query(() => ({
        key: keys.operatorCredential(),
        default_workspace_id: workspaces.defaultWorkspaceId,
        base_url: daemon.status().url + '/v1',
      })),
    }),
  };
}
