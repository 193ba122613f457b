// The spec's scopes. Each grants exactly its row; only admin implies the others.
export const SCOPES = [
  'agents:read',
  'agents:write',
  'agents:execute',
  'workflows:read',
  'workflows:write',
  'workflows:execute',
  'integrations:read',
  'integrations:write',
  'webhooks:read',
  'webhooks:write',
  'admin',
] as const;

export type Scope = (typeof SCOPES)[number];

export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'agents:read': 'View agents and configurations',
  'agents:write': 'Create, update, delete agents',
  'agents:execute': 'Send messages, execute agent actions',
  'workflows:read': 'View workflows',
  'workflows:write': 'Create and update workflows',
  'workflows:execute': 'Run workflows',
  'integrations:read': 'View connected integrations',
  'integrations:write': 'Connect and configure integrations',
  'webhooks:read': 'View webhook subscriptions',
  'webhooks:write': 'Create and manage webhooks',
  admin: 'Full access',
};

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** Parses a space- (or comma-) separated scope string; returns the unknown words apart. */
export function parseScopes(text: string): { scopes: Scope[]; unknown: string[] } {
  const words = text.split(/[\s,]+/).filter(Boolean);
  const scopes: Scope[] = [];
  const unknown: string[] = [];
  for (const word of words) {
    if (isScope(word)) {
      if (!scopes.includes(word)) scopes.push(word);
    } else unknown.push(word);
  }
  return { scopes, unknown };
}

export function hasScope(granted: ReadonlySet<Scope>, needed: Scope): boolean {
  return granted.has(needed) || granted.has('admin');
}
