// Event type patterns, as users write them in filters (GET /v1/events?type=, workflow event
// triggers, `svc listen --events`, the control channel's live stream): an exact type
// (agent.created), a prefix ending in * (agent.*, workflow.execution.*) or * alone. They are
// compared as strings (equality, startsWith), never turned into a regular expression, so no
// pattern can make matching slow; a * anywhere but at the end is refused.

/** The longest pattern accepted (the longest event type is 34 characters). */
export const MAX_TYPE_PATTERN_LENGTH = 100;

/** The most patterns one filter or trigger takes (there are 17 event types). */
export const MAX_TYPE_PATTERNS = 50;

/** Why a pattern is not accepted, for the error message; undefined when it is fine. */
export function typePatternProblem(pattern: string): string | undefined {
  if (pattern.length > MAX_TYPE_PATTERN_LENGTH)
    return `is longer than ${MAX_TYPE_PATTERN_LENGTH} characters`;
  const star = pattern.indexOf('*');
  if (star !== -1 && star !== pattern.length - 1)
    return '* may only end a pattern, as in agent.* (patterns are an event type or a prefix)';
  return undefined;
}

/** Whether an event type matches a pattern (an exact type, or a prefix ending in *). */
export function matchesTypePattern(pattern: string, type: string): boolean {
  return pattern.endsWith('*') ? type.startsWith(pattern.slice(0, -1)) : pattern === type;
}

/** A matcher for a list of patterns, built once: exact types in a set, prefixes in a list. */
export function typeMatcher(patterns: readonly string[]): (type: string) => boolean {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const pattern of patterns) {
    if (pattern.endsWith('*')) prefixes.push(pattern.slice(0, -1));
    else exact.add(pattern);
  }
  return (type) => exact.has(type) || prefixes.some((prefix) => type.startsWith(prefix));
}
