// The fixture file (`svc fixtures apply FILE`): a whole sandbox declared under names of the
// user's choosing, entries referring to each other as ${agents.support.id}. This one schema
// validates the file in the daemon, types the code, and is published as JSON Schema
// (`svc fixtures schema`) for editors.
import { z } from 'zod';
import { DisplayName } from './common.js';
import { AgentCreateBody, StubAddInput } from './agents.js';
import { EVENT_TYPES } from './events.js';
import { KNOWLEDGE_TYPES } from './enums.js';
import { IntegrationConnectBody } from './integrations.js';
import { OAuthAppCreateInput } from './oauth.js';
import { WebhookCreateBody } from './webhooks.js';
import { WorkflowCreateBody } from './workflows.js';
import { fixturePathProblem } from '../fixture-path.js';
import { SCOPES } from '../scopes.js';
import { TIERS } from '../tiers.js';

/** The sections of a fixture file, in the order their entries are listed in plans. */
export const FIXTURE_KINDS = [
  'workspaces',
  'keys',
  'secrets',
  'integrations',
  'agents',
  'workflows',
  'webhooks',
  'oauth_apps',
] as const;
export type FixtureKind = (typeof FIXTURE_KINDS)[number];

/** Entry names: used in references (${agents.support.id}) and in SVC_<KIND>_<NAME>_ID. */
export const FIXTURE_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/** The fields a reference may read, per kind: ${<kind>.<name>.<field>}. */
export const FIXTURE_FIELDS: Record<FixtureKind, readonly string[]> = {
  workspaces: ['id'],
  keys: ['id'],
  secrets: ['id', 'name'],
  integrations: ['id'],
  agents: ['id'],
  workflows: ['id'],
  webhooks: ['id'],
  oauth_apps: ['id', 'client_id'],
};

const workspaceRef = z.string().max(200).optional().meta({
  description: 'The workspace: ${workspaces.<name>.id} or a ws_ id; default: the default workspace',
});

const Workspace = z.strictObject({
  name: DisplayName,
  tier: z.enum(TIERS).meta({ description: 'Rate-limit tier; re-applying changes it in place' }),
});

const Key = z.strictObject({
  name: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: 'Default: the entry name' }),
  scopes: z.array(z.enum(SCOPES)).min(1),
  workspace: workspaceRef,
  expires_in: z
    .string()
    .max(50)
    .optional()
    .meta({ description: 'Duration until expiry: 90d, 12h, P30D; none: never expires' }),
});

const Secret = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'must be a secret name: letters, digits and _')
    .optional()
    .meta({ description: 'NAME as used in {{secrets.NAME}}; default: the entry name' }),
  value: z.string().min(1).max(65_536),
  workspace: workspaceRef,
});

const Integration = IntegrationConnectBody.extend({ workspace: workspaceRef });

const Stub = StubAddInput.omit({ agent_id: true }).meta({
  description: 'A sandbox stub: when the input matches, return this result / fail / delay',
});

/** A file the fixture names: relative to the fixture file's folder, and inside it. */
const FixturePath = z
  .string()
  .min(1)
  .max(1000)
  .superRefine((path, ctx) => {
    const problem = fixturePathProblem(path);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

const KnowledgeFile = z.strictObject({
  path: FixturePath,
  type: z.enum(KNOWLEDGE_TYPES).optional().meta({ description: 'Default faq' }),
  description: z.string().max(2000).optional(),
});

const Agent = AgentCreateBody.extend({
  workspace: workspaceRef,
  deploy: z
    .boolean()
    .optional()
    .meta({ description: 'true: active at once (POST /v1/agents/deploy), no training period' }),
  stubs: z.array(Stub).max(100).optional(),
  knowledge: z
    .array(z.union([FixturePath, KnowledgeFile]))
    .max(50)
    .optional()
    .meta({
      description:
        "Knowledge documents (PDF, MD, TXT, DOCX), by path relative to the fixture file (type faq), or {path, type, description}; paths stay inside the fixture file's folder (no absolute path, no .. out of it)",
    }),
});

const InlineWorkflow = WorkflowCreateBody.extend({ workspace: workspaceRef }).meta({
  title: 'InlineWorkflow',
});

const WorkflowFromFile = z
  .strictObject({
    file: FixturePath.meta({
      description:
        'A workflow file (svc workflows create -f), by path relative to the fixture file, inside its folder (no absolute path, no .. out of it)',
    }),
    workspace: workspaceRef,
    status: z.enum(['draft', 'active', 'paused', 'archived']).optional(),
  })
  .meta({ title: 'WorkflowFromFile' });

const WorkflowFromTemplate = z
  .strictObject({
    template: z.string().min(1).max(100).meta({ description: 'Template id (tmpl_...)' }),
    name: DisplayName,
    description: z.string().max(2000).optional(),
    status: z.enum(['draft', 'active']).optional(),
    agents: z
      .record(z.string(), z.string())
      .default({})
      .meta({ description: 'Template role -> agent: ${agents.<name>.id} or an agt_ id' }),
    settings: z.record(z.string(), z.unknown()).optional(),
    trigger: z
      .strictObject({ type: z.string(), config: z.record(z.string(), z.unknown()).optional() })
      .optional(),
    steps: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
    workspace: workspaceRef,
  })
  .meta({ title: 'WorkflowFromTemplate' });

const Workflow = z.union([WorkflowFromTemplate, WorkflowFromFile, InlineWorkflow]);

/** The one workflow form an entry is in (its keys decide), for errors that name its fields. */
export function workflowForm(entry: unknown) {
  const keys = entry && typeof entry === 'object' ? Object.keys(entry) : [];
  if (keys.includes('template')) return WorkflowFromTemplate;
  if (keys.includes('file')) return WorkflowFromFile;
  return InlineWorkflow;
}
export type FixtureWorkflowFile = z.infer<typeof WorkflowFromFile>;
export type FixtureWorkflowTemplate = z.infer<typeof WorkflowFromTemplate>;
export type FixtureWorkflowInline = z.infer<typeof InlineWorkflow>;

const Webhook = WebhookCreateBody.extend({
  workspace: workspaceRef,
  secret: z
    .string()
    .regex(/^whsec_[A-Za-z0-9]{24,128}$/, 'must be whsec_ followed by 24 to 128 letters or digits')
    .optional()
    .meta({
      description:
        'Sandbox only: a fixed signing secret, so a receiver configured beside the fixture verifies deliveries',
    }),
});

const OAuthApp = OAuthAppCreateInput.omit({ workspace_id: true }).extend({
  workspace: workspaceRef,
});

/**
 * How far one apply's `then` actions may move the sandbox clock: a fixture may come from someone
 * else, and each due time on the way does its work during the apply (a per-second schedule moved
 * 100000d was hours of runs in one command). A longer move is the user's own svc clock advance.
 */
export const FIXTURE_CLOCK_LIMIT = { duration: '1d', ms: 86_400_000, dueTimes: 1000 } as const;

const ThenAction = z.union([
  z.strictObject({
    trigger_event: z.strictObject({
      type: z.enum(EVENT_TYPES),
      workspace: workspaceRef,
      data: z.record(z.string(), z.unknown()).optional(),
    }),
  }),
  z.strictObject({
    run_workflow: z.strictObject({
      workflow: z
        .string()
        .min(1)
        .max(200)
        .meta({ description: '${workflows.<name>.id} or a wf_ id' }),
      workspace: workspaceRef,
      input: z.record(z.string(), z.unknown()).optional(),
    }),
  }),
  z.strictObject({
    advance_clock: z
      .string()
      .min(1)
      .max(50)
      .meta({
        description: `A duration: 30s, 1h, PT1H. A fixture's then actions move the clock ${FIXTURE_CLOCK_LIMIT.duration} at most in all, through at most ${FIXTURE_CLOCK_LIMIT.dueTimes} due times (schedule occurrences, waits, retries); move it further with svc clock advance`,
      }),
  }),
]);

function section<T extends z.ZodType>(entry: T, description: string) {
  return z
    .record(z.string().regex(FIXTURE_NAME, 'entry names are letters, digits, _ and -'), entry)
    .optional()
    .meta({ description });
}

export const FixtureFile = z
  .strictObject({
    $schema: z.string().optional().meta({ description: 'For editors; ignored' }),
    version: z.literal(1).optional().meta({ description: 'The fixture format version (1)' }),
    workspaces: section(Workspace, 'Workspaces by name'),
    keys: section(Key, 'API keys by name; the key value is printed once, when created'),
    secrets: section(Secret, 'Workspace secrets by name'),
    integrations: section(Integration, 'Connected integrations by name'),
    agents: section(Agent, 'Agents by name'),
    workflows: section(
      Workflow,
      'Workflows by name: inline, from a workflow file (file:), or from a template (template:)',
    ),
    webhooks: section(Webhook, 'Webhook subscriptions by name'),
    oauth_apps: section(OAuthApp, 'OAuth apps by name; the client secret is printed once'),
    then: z
      .array(ThenAction)
      .max(100)
      .optional()
      .meta({ description: 'Run after every entry is in place, on each apply, in order' }),
  })
  .meta({
    title: 'svc fixture file',
    description:
      'Declares a sandbox for `svc fixtures apply`. Any string may hold ${<kind>.<name>.<field>} references; $${ is a literal ${.',
  });

export type FixtureDocument = z.infer<typeof FixtureFile>;
export type FixtureAgent = z.infer<typeof Agent>;
export type FixtureWorkflow = z.infer<typeof Workflow>;
export type FixtureThen = z.infer<typeof ThenAction>;

/** A file a fixture names by path (knowledge documents), sent by the CLI with the fixture. */
export const FixtureAttachment = z.strictObject({
  content_base64: z.string().max(15 * 1024 * 1024),
});

export const FixtureApplyInput = z.strictObject({
  /** The parsed fixture file; validated by the daemon so errors name the entry and field. */
  fixture: z.unknown(),
  /** Knowledge files by the path the fixture gives. */
  files: z.record(z.string(), FixtureAttachment).optional(),
  /** Workflow files (workflows.<name>.file), parsed by the client, by the path given. */
  workflow_files: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  dry_run: z.boolean().optional(),
});
export type FixtureApplyRequest = z.infer<typeof FixtureApplyInput>;

export const FIXTURE_ACTIONS = ['create', 'update', 'unchanged'] as const;
export type FixtureAction = (typeof FIXTURE_ACTIONS)[number];

const FixtureKindName = z.enum(FIXTURE_KINDS);

export const FixturePlanEntry = z.object({
  kind: FixtureKindName,
  name: z.string(),
  action: z.enum(FIXTURE_ACTIONS),
  /** The object's id; null when it is still to be created (dry run). */
  id: z.string().nullable(),
  /** What changed, for updates (the top-level fields). */
  changes: z.array(z.string()).optional(),
});
export type FixturePlanEntry = z.infer<typeof FixturePlanEntry>;

export const FixtureApplyResult = z.object({
  dry_run: z.boolean(),
  plan: z.array(FixturePlanEntry),
  /** kind -> name -> id. */
  ids: z.partialRecord(FixtureKindName, z.record(z.string(), z.string())),
  /** Values shown this once: key secrets, OAuth client secrets, generated webhook secrets. */
  secrets: z.array(
    z.object({ kind: FixtureKindName, name: z.string(), field: z.string(), value: z.string() }),
  ),
  /** What the `then:` actions did. */
  then: z.array(z.object({ action: z.string(), result: z.record(z.string(), z.unknown()) })),
});
export type FixtureApplyResult = z.infer<typeof FixtureApplyResult>;

/** The JSON Schema of the fixture file (draft 2020-12), as `svc fixtures schema` prints it. */
export function fixtureJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(FixtureFile, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
}
