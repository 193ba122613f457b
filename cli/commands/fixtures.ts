// svc fixtures apply|schema: a whole sandbox declared in one file (workspaces, keys, agents,
// workflows, webhooks, secrets, integrations, OAuth apps), applied idempotently by the daemon.
import { command, defineCommands, group } from '../command.js';
import type { CliContext } from '../context.js';
import { chalk, table } from '../output.js';

/** Applies a fixture file through the control channel; shared with `svc daemon start --fixtures`. */
export async function applyFixtureFile(
  ctx: CliContext,
  file: string,
  options: { dryRun?: boolean; envFile?: string | undefined; appUrl?: string },
) {
  const { readFixture, envLines } = await import('../fixture-file.js');
  const payload = await readFixture(file);
  // svc daemon start --port 0 --fixtures: the daemon's address is the one it just reported.
  const control = options.appUrl ? await ctx.controlOfRecord() : await ctx.control();
  const result = await control.fixtures.applyFixture.mutate({
    ...payload,
    dry_run: options.dryRun === true,
  });
  if (options.envFile && !result.dry_run) {
    const { writeFileSync, chmodSync } = await import('node:fs');
    // Holds key and client secrets: readable by the user alone.
    const baseUrl = `${options.appUrl ?? ctx.appUrl()}/v1`;
    writeFileSync(options.envFile, envLines(result, baseUrl), { mode: 0o600 });
    chmodSync(options.envFile, 0o600);
  }
  return result;
}

type ApplyResult = Awaited<ReturnType<typeof applyFixtureFile>>;

export function describeApply(result: ApplyResult): string {
  const colour = { create: chalk.green, update: chalk.yellow, unchanged: chalk.dim };
  const lines = [
    table(
      ['ACTION', 'ENTRY', 'ID', 'CHANGES'],
      result.plan.map((entry) => [
        colour[entry.action](entry.action),
        `${entry.kind}.${entry.name}`,
        entry.id ?? '-',
        entry.changes?.join(', ') ?? '',
      ]),
    ),
  ];
  const counts = ['create', 'update', 'unchanged'].map(
    (action) => `${result.plan.filter((entry) => entry.action === action).length} ${action}`,
  );
  lines.push(
    result.dry_run
      ? `Dry run: ${counts.join(', ')}. Nothing was changed.`
      : `Applied: ${counts.join(', ')}.`,
  );
  for (const shown of result.secrets) {
    lines.push(
      `${shown.kind}.${shown.name} ${shown.field}: ${chalk.bold(shown.value)} (shown once)`,
    );
  }
  for (const done of result.then) lines.push(`then ${done.action}: ${JSON.stringify(done.result)}`);
  return lines.join('\n');
}

/**
 * How to act in the workspaces the file declares: the CLI acts in the operator's default one
 * unless told, so a fixture's objects would otherwise be "not found".
 */
export function workspaceHints(result: ApplyResult): string[] {
  return result.plan
    .filter((entry) => entry.kind === 'workspaces' && entry.id)
    .map(
      (entry) =>
        `Workspace ${entry.name} is ${entry.id}${result.dry_run ? ' (unchanged by the dry run)' : ''}: act in it with svc --workspace ${entry.id} ... or export SVC_WORKSPACE=${entry.id}`,
    );
}

export default defineCommands([
  group(['fixtures'], 'Set a sandbox up from a fixture file (YAML or JSON)'),
  command({
    path: ['fixtures', 'apply'],
    description:
      'Create or update what a fixture file declares; applying again creates nothing twice',
    args: [{ name: 'file', description: 'the fixture file (YAML or JSON), - for stdin' }],
    options: [
      {
        flags: '--dry-run',
        description: 'print the plan (create / update / unchanged), change nothing',
      },
      {
        flags: '--env-file <path>',
        description: 'also write SVC_<KIND>_<NAME>_ID=... lines (and secrets shown once) there',
      },
      {
        flags: '--env-out <path>',
        description:
          'the same as --env-file, for Node 20 (which reads any --env-file argument itself first)',
      },
    ],
    examples: [
      'svc fixtures apply fixtures/support-desk.yaml',
      'svc fixtures apply sandbox.yaml --dry-run',
      'svc fixtures apply sandbox.yaml --json --env-out .env.svc',
    ],
    async run(ctx, [file], options) {
      const result = await applyFixtureFile(ctx, file!, {
        dryRun: options.dryRun === true,
        envFile: options.envOut ?? options.envFile,
      });
      ctx.out.result(result, () => describeApply(result));
      for (const line of workspaceHints(result)) ctx.out.note(line);
    },
  }),
  command({
    path: ['fixtures', 'schema'],
    description: 'Print the JSON Schema of fixture files (for editors)',
    examples: ['svc fixtures schema > svc-fixture.schema.json'],
    async run(ctx) {
      const { fixtureJsonSchema } = await import('../../shared/schemas/fixtures.js');
      const schema = fixtureJsonSchema();
      ctx.out.result(schema, () => JSON.stringify(schema, null, 2));
    },
  }),
]);
