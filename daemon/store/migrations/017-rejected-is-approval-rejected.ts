import type { Migration } from './migration.js';

export const rejectedIsApprovalRejected: Migration = {
  version: 17,
  name: 'rejected agent executions carry approval_rejected',
  // A reviewer's rejection was stored as the error code 'rejected', a code of no table; it is
  // approval_rejected now (shared/errors.ts), the code a workflow step waiting on it had all
  // along. Executions rejected before keep their meaning under the one name.
  sql: `
      UPDATE agent_executions SET error_code = 'approval_rejected' WHERE error_code = 'rejected';
    `,
};
