// The API of a workflow's page: the workflow with its steps placed as a graph, the input fields
// they read and how its trigger is called, and its versions with what each changed. Reads only; each answer from the
// workflows service the REST API calls.
import { z } from 'zod';
import type { ServerUrls } from '../domain/urls.js';
import { params, WorkspaceQuery, type ApiKit } from './api-kit.js';
import type { DashboardServices } from './deps.js';
import { stepGraph } from './step-graph.js';
import { hookCall, payloadFields, versionChanges } from './workflow-facts.js';

const VersionsQuery = WorkspaceQuery.extend({
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

/** `urls` is read at each request: the daemon's address is known only once it listens. */
export function workflowApi({ read }: ApiKit, services: DashboardServices, urls: ServerUrls): void {
  read('/ui/api/workflows/:workflow_id', WorkspaceQuery, (_input, workspaceId, request) => {
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
  });
  read('/ui/api/workflows/:workflow_id/versions', VersionsQuery, (input, workspaceId, request) => {
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
  });
}
