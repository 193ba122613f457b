// A snapshot's workflows are checked as a create checks them (issue 38, item 4 and gaps): a
// snapshot whose workflow breaks the expression budget, the secret-use rule, the parallel-reach
// rule or the step graph is refused by svc state import, naming the workflow and the rule, and
// nothing of it is imported. A snapshot whose workflows keep the rules imports as before.
import test from 'ava';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { trpc } from '../helpers/api.js';
import { assertExit } from '../helpers/daemon.js';
import { sharedDaemon } from '../helpers/setup.js';
import { tempDir } from '../helpers/temp-dir.js';
import { apiFor, createWorkflow, waitStep, type Api } from '../helpers/workflows.js';

const d = sharedDaemon(test);
const dir = tempDir('svc-snapshot-rules-');
let api: Api;
let workflowId: string;

test.before(async () => {
  const operator = await d.operator();
  api = await apiFor(d, operator.workspaceId);
  workflowId = await createWorkflow(api, {
    name: 'Kept',
    trigger: { type: 'manual' },
    steps: [waitStep('pause', 0)],
  });
});

/**
 * Exports the sandbox, then rewrites the stored steps of the workflow's current version (`steps`,
 * or what `steps` makes of the stored ones).
 */
async function snapshotWith(
  name: string,
  steps: unknown[] | ((stored: any[]) => unknown[]),
): Promise<string> {
  const file = join(dir, `${name}.svcsnap`);
  const result = await d.cli(['state', 'export', file]);
  if (result.code !== 0) throw new Error(`svc state export: ${result.stderr}`);
  const db = new Database(file);
  try {
    const where = 'workflow_id = ? AND version = (SELECT version FROM workflows WHERE id = ?)';
    const stored = db
      .prepare<[string, string], { steps: string }>(
        `SELECT steps FROM workflow_versions WHERE ${where}`,
      )
      .get(workflowId, workflowId)!;
    const next = typeof steps === 'function' ? steps(JSON.parse(stored.steps)) : steps;
    db.prepare(`UPDATE workflow_versions SET steps = ? WHERE ${where}`).run(
      JSON.stringify(next),
      workflowId,
      workflowId,
    );
  } finally {
    db.close();
  }
  return file;
}

const wait = (id: string, reason: string, next?: string) => ({
  id,
  name: id,
  type: 'wait',
  config: { duration_seconds: 0, reason },
  ...(next ? { next_step_id: next } : {}),
});

const CASES: { rule: string; steps: unknown[]; message: RegExp }[] = [
  {
    rule: 'the expression budget',
    steps: [
      wait('many', Array.from({ length: 501 }, (_, i) => `{{trigger.payload.f${i}}}`).join(' ')),
    ],
    message: /more than 500 expressions/,
  },
  {
    rule: 'the secret-use rule',
    steps: [wait('peek', '{{secrets.K[0]}}')],
    message: /secret/i,
  },
  {
    rule: 'parallel reach',
    steps: [
      {
        id: 'p',
        name: 'p',
        type: 'parallel',
        config: { steps: ['a', 'b'], wait_for_all: true },
      },
      wait('a', 'a', 'join'),
      wait('b', 'b', 'join'),
      wait('join', 'join'),
    ],
    message: /p -> a -> join and p -> b -> join/,
  },
  {
    rule: 'the step graph',
    steps: [wait('first', 'first', 'missing')],
    message: /refers to step 'missing', which does not exist/,
  },
];

for (const { rule, steps, message } of CASES) {
  test.serial(
    `a snapshot whose workflow breaks ${rule} is refused; nothing is imported`,
    async (t) => {
      const file = await snapshotWith(rule.replace(/\W+/g, '-'), steps);
      // Made after the export: an import would remove it.
      const after = await createWorkflow(api, {
        name: 'Made after the export',
        trigger: { type: 'manual' },
        steps: [waitStep('w', 0)],
      });
      const refused = await d.cli(['state', 'import', file]);
      assertExit(t, refused, 1);
      t.log(refused.stderr.trim());
      t.regex(refused.stderr, new RegExp(`workflow ${workflowId} \\('Kept'`));
      t.regex(refused.stderr, /nothing was imported/);
      t.regex(refused.stderr, message);
      t.is((await api('GET', `/workflows/${after}`)).status, 200, 'the sandbox is as it was');
      const kept = await api('GET', `/workflows/${workflowId}`);
      t.deepEqual(
        kept.body.data.steps.map((step: { id: string }) => step.id),
        ['pause'],
      );
    },
  );
}

test.serial('a snapshot whose workflows keep every rule is imported', async (t) => {
  // The stored step as a create stored it, with an expression added to its reason.
  const file = await snapshotWith('valid', (stored) => [
    { ...stored[0], config: { ...stored[0].config, reason: 'ok {{trigger.payload.a}}' } },
  ]);
  const imported = await d.cli(['state', 'import', file]);
  assertExit(t, imported, 0);
  // The operator credential is the daemon's own, minted again after an import.
  const operator = await trpc<{ key: string; default_workspace_id: string }>(
    d,
    'auth.operatorCredential',
  );
  const kept = await d.callJson('GET', `/v1/workflows/${workflowId}`, undefined, {
    key: operator.data!.key,
    tenant: operator.data!.default_workspace_id,
  });
  t.is(kept.status, 200, kept.text);
  t.is(kept.body.data.steps[0].config.reason, 'ok {{trigger.payload.a}}');
});
