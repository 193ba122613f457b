// Every command of the CLI, in help order. Command modules are light: heavy modules load
// inside the handlers.
import type { CliEntry } from './command.js';
import agents from './commands/agents.js';
import approvals from './commands/approvals.js';
import clock from './commands/clock.js';
import completion from './commands/completion.js';
import daemon from './commands/daemon.js';
import dashboard from './commands/dashboard.js';
import events from './commands/events.js';
import fixtures from './commands/fixtures.js';
import faults from './commands/faults.js';
import webhookReplay from './commands/webhook-replay.js';
import workflowRerun from './commands/workflow-rerun.js';
import waits from './commands/waits.js';
import agentRecord from './commands/agent-record.js';
import keys from './commands/keys.js';
import listen from './commands/listen.js';
import secrets from './commands/secrets.js';
import state from './commands/state.js';
import status from './commands/status.js';
import oauth from './commands/oauth.js';
import webhooks from './commands/webhooks.js';
import workflowTemplates from './commands/workflow-templates.js';
import workflowTrigger from './commands/workflow-trigger.js';
import workflows from './commands/workflows.js';
import workspaces from './commands/workspaces.js';

export const COMMANDS: CliEntry[] = [
  ...status,
  ...daemon,
  ...workspaces,
  ...keys,
  ...oauth,
  ...clock,
  ...events,
  ...agents,
  ...agentRecord,
  ...approvals,
  ...workflows,
  ...workflowRerun,
  ...waits,
  ...secrets,
  ...workflowTemplates,
  ...workflowTrigger,
  ...webhooks,
  ...webhookReplay,
  ...listen,
  ...fixtures,
  ...state,
  ...dashboard,
  ...faults,
  ...completion,
];
