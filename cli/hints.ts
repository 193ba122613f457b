// The API's messages say how to fix a refusal in REST terms (`List them with GET /v1/agents.`,
// `Activate it first: PATCH /v1/workflows/wfl_1 {"status": "active"}.`), which is right for an
// API client and wrong at a prompt. The CLI keeps the API's message, replaces those sentences with
// the svc command that does the same, and says which workspace it acted in when something was
// not found there. REST callers see the API's own wording, unchanged.
import type { WorkspaceInUse } from './context.js';

type Rewrite = [pattern: RegExp, replace: (...groups: string[]) => string];

const REST_HINTS: Rewrite[] = [
  [
    /List them with GET \/v1\/(agents|workflows|webhooks)\./,
    (noun) => `List them with: svc ${noun} list.`,
  ],
  [
    /List them with GET \/v1\/workflows\/templates or: svc workflows templates/,
    () => 'List them with: svc workflows templates',
  ],
  [
    /Activate it first: PATCH \/v1\/workflows\/(\S+) \{"status": "active"\}\./,
    (id) => `Activate it first: svc workflows activate ${id}`,
  ],
];

/** Agent hints name the agent, which the sentence itself does not: it is at the message's start. */
const AGENT_HINTS: Rewrite[] = [
  [
    /or at once with PATCH \{"status": "active"\} or POST \/v1\/agents\/deploy\./,
    (id) => `or at once with: svc agents deploy ${id}`,
  ],
  [
    /Activate it with PATCH \{"status": "active"\}\./,
    (id) => `Activate it with: svc agents update ${id} --status active`,
  ],
];

/** The message the CLI prints for an error the API or the control channel answered. */
export function cliMessage(code: string, message: string, workspace: WorkspaceInUse): string {
  let text = message;
  for (const [pattern, replace] of REST_HINTS)
    text = text.replace(pattern, (_match, ...groups: string[]) => replace(...groups));
  const agent = /^Agent (\S+) is /.exec(text)?.[1];
  if (agent)
    for (const [pattern, replace] of AGENT_HINTS)
      text = text.replace(pattern, () => replace(agent));
  if (code.endsWith('_not_found')) text = text.replace('in this workspace', inWorkspace(workspace));
  return text;
}

/** "in workspace ws_1 (the operator's default; choose another with --workspace ID or SVC_WORKSPACE)" */
function inWorkspace(workspace: WorkspaceInUse): string {
  const choose = 'choose another with --workspace ID or SVC_WORKSPACE';
  if (!workspace.id) return `in the default workspace (${choose})`;
  return `in workspace ${workspace.id} (${workspace.source}; ${choose})`;
}
