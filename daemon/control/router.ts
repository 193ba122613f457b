// The control channel: what the CLI manages that the REST API does not (workspaces, keys,
// the clock, the daemon itself) and live streams. Loopback only, control-token auth.
// One file of procedures per noun (*.procedures.ts); this router only assembles them, in the
// order `svc --help` lists the nouns.
import type { ControlDeps } from './deps.js';
import { t } from './procedure.js';
import { agentProcedures } from './agents.procedures.js';
import { approvalProcedures } from './approvals.procedures.js';
import { clockProcedures } from './clock.procedures.js';
import { daemonProcedures } from './daemon.procedures.js';
import { dashboardProcedures } from './dashboard.procedures.js';
import { eventProcedures } from './events.procedures.js';
import { faultProcedures } from './faults.procedures.js';
import { fixtureProcedures } from './fixtures.procedures.js';
import { keyProcedures } from './keys.procedures.js';
import { oauthProcedures } from './oauth.procedures.js';
import { secretProcedures } from './secrets.procedures.js';
import { stateProcedures } from './state.procedures.js';
import { triggerProcedures } from './triggers.procedures.js';
import { waitProcedures } from './wait.procedures.js';
import { webhookProcedures } from './webhooks.procedures.js';
import { workspaceProcedures } from './workspaces.procedures.js';

export { controlContextFactory, isAuthorized, type ControlContext } from './procedure.js';

export function createControlRouter(deps: ControlDeps) {
  return t.router({
    ...daemonProcedures(deps),
    ...workspaceProcedures(deps),
    ...keyProcedures(deps),
    ...clockProcedures(deps),
    ...waitProcedures(deps),
    ...approvalProcedures(deps),
    ...triggerProcedures(deps),
    ...eventProcedures(deps),
    ...secretProcedures(deps),
    ...agentProcedures(deps),
    ...oauthProcedures(deps),
    ...stateProcedures(deps),
    ...fixtureProcedures(deps),
    ...dashboardProcedures(deps),
    ...faultProcedures(deps),
    ...webhookProcedures(deps),
  });
}

export type ControlRouter = ReturnType<typeof createControlRouter>;
