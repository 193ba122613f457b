// The API of a workflow's page: the workflow with its steps placed as a graph, the input fields
// they read and how its trigger is called, and its versions with what each changed. Reads only; each answer from the
// workflows service the REST API calls.
import { z } from 'zod';
import { Timestamp } from '../../shared/schemas/common.js';
import { Workflow } from '../../shared/schemas/workflows.js';
import type { ServerUrls } from '../domain/urls.js';
import { HookCall, StepGraph } from './answers.js';
import { params, route, WorkspaceQuery, type ApiKit } from './api-kit.js';
import type { DashboardServices } from './deps.js';
import { stepGraph } from './step-graph.js';
import { hookCall, payloadFields, versionChanges } from './workflow-facts.js';

const VersionsQuery = WorkspaceQuery.extend({
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

export const workflowRoutes = {
  'GET /workflows/:workflow_id': route(
    WorkspaceQuery,
    Workflow.extend({
      graph: StepGraph,
      /** The fields of trigger.payload the steps read, in order of first use. */
      input_fields: z.array(z.string()),
      /** How its webhook trigger is called; null for another trigger. */
      hook: HookCall.nullable(),
    }),
  ),
  'GET /workflows/:workflow_id/versions': route(
    VersionsQuery,
    z.object({
      data: z.array(
        z.object({
          version: z.number().int(),
          name: z.string(),
          created_at: Timestamp,
          step_count: z.number().int(),
          /** What it changed from the version before, in words. */
          changes: z.array(z.string()),
          graph: StepGraph,
        }),
      ),
      has_more: z.boolean(),
    }),
  ),
};

/** `urls` is read at each request: the daemon's address is known only once it listens. */
export function workflowApi(kit: ApiKit, services: DashboardServices, urls: ServerUrls): void {
  kit.serve(workflowRoutes, {
    'GET /workflows/:workflow_id': (_input, workspaceId, request) => {
      const workflow = services.workflows.get(workspaceId, params(request).workflow_id!);
      return {
        ...workflow,
        graph: stepGraph(workflow.steps),
        input_fields: payloadFields(workflow.steps),
        hook:
          workflow.trigger.type === 'webhook'
            ? hookCall(urls.app, workspaceId, workflow.trigger.config)
            : null,
      };
    },
    'GET /workflows/:workflow_id/versions': (input, workspaceId, request) => {
      // One more than shown, so that the oldest shown has the one before it to compare with.
      const id = params(request).workflow_id!;
      const versions = services.workflows.versions(workspaceId, id, input.limit + 1);
      return {
        data: versions.slice(0, input.limit).map((version, index) => ({
          version: version.version,
          name: version.name,
          created_at: version.created_at,
          step_count: version.steps.length,
          changes: versionChanges(version, versions[index + 1]),
          graph: stepGraph(version.steps),
        })),
        has_more: versions.length > input.limit,
      };
    },
  });
}
