// What a workflow's page shows beyond the API's view, worked out from it: how a webhook trigger
// is called (its URL and a curl command that runs as is, signing the body when the trigger has a
// secret), what each version changed from the one before, and the input fields the steps read.
import type { WorkflowStepView } from '../../shared/schemas/workflows.js';
import type { HookCall } from './answers.js';

/**
 * How to call a webhook trigger. The secret is write-only (never shown), so a signed trigger's
 * command signs with openssl from HOOK_SECRET, which the user sets to the secret they chose: the
 * scheme of shared/signature.ts, a fresh `t` each time (a signed request starts one run only).
 */
export function hookCall(appUrl: string, workspaceId: string, config: Record<string, unknown>) {
  const path = String(config.path);
  const url = `${appUrl}/v1/hooks/${workspaceId}/${encodeURIComponent(path)}`;
  const signed = config.has_secret === true;
  const post = `curl -sS -X POST '${url}' -H 'content-type: application/json'`;
  const curl = signed
    ? [
        "HOOK_SECRET='the secret you gave the trigger'",
        `body='{"example": true}'`,
        't=$(date +%s)',
        `sig=$(printf '%s.%s' "$t" "$body" | openssl dgst -sha256 -hmac "$HOOK_SECRET" | sed 's/^.*= //')`,
        `${post} -H "X-Svc-Signature: t=$t,v1=$sig" --data "$body"`,
      ].join('\n')
    : `${post} --data '{"example": true}'`;
  return { url, signed, curl } satisfies HookCall;
}

/** What changed from `older` to `newer`, in words; a first version reads "created". */
export function versionChanges(
  newer: { name: string; steps: WorkflowStepView[]; settings: unknown },
  older: { name: string; steps: WorkflowStepView[]; settings: unknown } | undefined,
): string[] {
  if (!older) return ['created'];
  const changes: string[] = [];
  if (newer.name !== older.name) changes.push(`renamed from "${older.name}"`);
  const before = new Map(older.steps.map((step) => [step.id, JSON.stringify(step)]));
  const after = new Map(newer.steps.map((step) => [step.id, JSON.stringify(step)]));
  const added = [...after.keys()].filter((id) => !before.has(id));
  const removed = [...before.keys()].filter((id) => !after.has(id));
  const changed = [...after.keys()].filter(
    (id) => before.has(id) && before.get(id) !== after.get(id),
  );
  if (added.length > 0) changes.push(`steps added: ${added.join(', ')}`);
  if (removed.length > 0) changes.push(`steps removed: ${removed.join(', ')}`);
  if (changed.length > 0) changes.push(`steps changed: ${changed.join(', ')}`);
  if (JSON.stringify(newer.settings) !== JSON.stringify(older.settings)) {
    changes.push('settings changed');
  }
  const order = (steps: WorkflowStepView[]) => steps.map((step) => step.id).join();
  if (changes.length === 0 && order(newer.steps) !== order(older.steps)) {
    changes.push('steps reordered');
  }
  return changes.length > 0 ? changes : ['no change to steps or settings'];
}

/**
 * The fields of the run's input (trigger.payload) the steps read, in order of first use: what the
 * page's input editor checks an edited input against. Read from the steps' config text, so a
 * field read by a computed name (trigger.payload[key]) is not listed.
 */
export function payloadFields(steps: readonly WorkflowStepView[]): string[] {
  const fields = new Set<string>();
  for (const step of steps) {
    for (const match of JSON.stringify(step.config).matchAll(PAYLOAD_FIELD)) fields.add(match[1]!);
  }
  return [...fields];
}

const PAYLOAD_FIELD = /\btrigger\.payload\.([A-Za-z_$][\w$]*)/g;
