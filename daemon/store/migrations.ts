// Numbered schema migrations, one file each in migrations/. Each runs once, in order, inside a
// transaction; the database's user_version records the last one applied. Never edit a migration
// that has shipped: add one (its file, and its line at the end of MIGRATIONS).
import { platform } from './migrations/001-platform.js';
import { webhooks } from './migrations/002-webhooks.js';
import { agents } from './migrations/003-agents.js';
import { timerOwnersAndDeadTimers } from './migrations/004-timer-owners-and-dead-timers.js';
import { workflowsRunsAndSecrets } from './migrations/005-workflows-runs-and-secrets.js';
import { workflowTriggers } from './migrations/006-workflow-triggers.js';
import { oauth } from './migrations/007-oauth.js';
import { secretsAtRest } from './migrations/008-secrets-at-rest.js';
import { listCounts } from './migrations/009-list-counts.js';
import { dashboard } from './migrations/010-dashboard.js';
import { faultInjectionAndReruns } from './migrations/011-fault-injection-and-reruns.js';
import { fixtureObjects } from './migrations/012-fixture-objects.js';
import { retentionIndexes } from './migrations/013-retention-indexes.js';
import { listCountsOfInserts } from './migrations/014-list-counts-of-inserts.js';
import { listCountsOfStatusChanges } from './migrations/015-list-counts-of-status-changes.js';
import { oneIndexLessOnDeliveries } from './migrations/016-one-index-less-on-deliveries.js';
import { rejectedIsApprovalRejected } from './migrations/017-rejected-is-approval-rejected.js';
import { hookSignatures } from './migrations/018-hook-signatures.js';
import { attemptsRecordedBeforeSent } from './migrations/019-attempts-recorded-before-sent.js';
import { knowledgeStemming } from './migrations/020-knowledge-stemming.js';
import { agentExecutionPages } from './migrations/021-agent-execution-pages.js';
import { eventsOfARun } from './migrations/022-events-of-a-run.js';
import { keyLastUsed } from './migrations/023-key-last-used.js';
import { eventsByType } from './migrations/024-events-by-type.js';
import { sharedTexts } from './migrations/025-shared-texts.js';
import { realElapsedTimes } from './migrations/026-real-elapsed-times.js';
import { daemonsAndClaims } from './migrations/027-daemons-and-claims.js';
import { rateCounters } from './migrations/028-rate-counters.js';
import { dashboardSessions } from './migrations/029-dashboard-sessions.js';
import { cassettes } from './migrations/030-cassettes.js';
import type { Migration } from './migrations/migration.js';

export type { Migration, MigrationContext } from './migrations/migration.js';

export const MIGRATIONS: readonly Migration[] = [
  platform,
  webhooks,
  agents,
  timerOwnersAndDeadTimers,
  workflowsRunsAndSecrets,
  workflowTriggers,
  oauth,
  secretsAtRest,
  listCounts,
  dashboard,
  faultInjectionAndReruns,
  fixtureObjects,
  retentionIndexes,
  listCountsOfInserts,
  listCountsOfStatusChanges,
  oneIndexLessOnDeliveries,
  rejectedIsApprovalRejected,
  hookSignatures,
  attemptsRecordedBeforeSent,
  knowledgeStemming,
  agentExecutionPages,
  eventsOfARun,
  keyLastUsed,
  eventsByType,
  sharedTexts,
  realElapsedTimes,
  daemonsAndClaims,
  rateCounters,
  dashboardSessions,
  cassettes,
];
