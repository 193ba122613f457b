// svc dashboard, svc open <id>: one-time login links for the dashboard.
import { DashboardLoginInput } from '../../shared/schemas/control.js';
import { DashboardLoginLink } from '../../shared/schemas/control-output.js';
import type { ControlDeps } from './deps.js';
import { operator, t } from './procedure.js';

export function dashboardProcedures({ dashboard }: ControlDeps) {
  return {
    dashboard: t.router({
      /** A one-time login link for the dashboard (svc dashboard, svc open <id>). */
      login: operator
        .input(DashboardLoginInput)
        .output(DashboardLoginLink)
        .mutation(({ input }) => dashboard.login(input)),
    }),
  };
}
