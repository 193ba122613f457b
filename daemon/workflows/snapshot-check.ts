// A snapshot's workflows are checked as a create checks a workflow (graph.ts: the step graph,
// parallel reach, the expression budget, the secret-use rule, the agents it names) before the
// snapshot is swapped in: a snapshot travels, and one written by an older svc, or edited, could
// hold a workflow that no create would accept (issue 38). The first that breaks a rule refuses
// the whole import, naming the workflow and the rule; nothing is imported. Literal webhook URLs
// are not checked against this daemon's outbound policy here: every call is checked when sent.
import type { WorkflowStepInput } from '../../shared/schemas/workflows.js';
import { ApiError } from '../domain/errors.js';
import { validateSteps } from './graph.js';
import { readSnapshotWorkflows } from './snapshot-workflows.repository.js';

/** Lets the event loop serve other requests between two workflows (each may take ~60 ms). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Throws 400 invalid_parameter naming the first workflow of the snapshot that breaks a rule. */
export async function checkSnapshotWorkflows(file: string): Promise<void> {
  const { workflows, agents } = readSnapshotWorkflows(file);
  for (const workflow of workflows) {
    await nextTurn();
    const known = agents.get(workflow.workspace_id);
    try {
      validateSteps(JSON.parse(workflow.steps) as WorkflowStepInput[], {
        agentExists: (agentId) => known?.has(agentId) ?? false,
      });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      throw new ApiError(
        'invalid_parameter',
        `The snapshot's workflow ${workflow.id} ('${workflow.name}', workspace ` +
          `${workflow.workspace_id}, version ${workflow.version}) breaks a rule every workflow ` +
          `must keep, so nothing was imported: ${error.message}` +
          `${error.param ? ` (${error.param})` : ''} Fix the workflow where the snapshot was ` +
          `made (PATCH it) and export again.`,
        { param: 'file' },
      );
    }
  }
}
