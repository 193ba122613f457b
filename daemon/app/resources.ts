// The REST API's resources, one module each (http/rest-module.ts), in the order the app serves
// them and the OpenAPI document lists their paths. Adding a resource is one line here: the app
// registers its routes and the document describes its tag from this list.
import type { AccessGuard } from '../auth/access.js';
import { meModule } from '../auth/me.routes.js';
import { eventModule } from '../events/event.routes.js';
import { webhookModule } from '../webhooks/webhook.routes.js';
import { integrationModule } from '../integrations/integration.routes.js';
import { agentModule } from '../agents/agent.routes.js';
import { workflowModule } from '../workflows/workflow.routes.js';
import { templateModule } from '../templates/template.routes.js';
import { hookModule } from '../triggers/hook.routes.js';
import type { RestModule } from '../http/rest-module.js';
import type { Services } from './services.js';

/** What a module's routes are built from: the daemon's services and the request guard. */
export type RouteDeps = Services & { guard: AccessGuard };

export const REST_MODULES: readonly RestModule<RouteDeps>[] = [
  meModule,
  eventModule,
  webhookModule,
  integrationModule,
  agentModule,
  workflowModule,
  templateModule,
  hookModule,
];
