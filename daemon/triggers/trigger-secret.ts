// A webhook trigger's `config.secret` is write-only: the workflow row keeps it sealed with the
// daemon's SecretBox, views (GET, lists, events, from-template) show `has_secret: true` instead,
// and a write that does not send it keeps the one stored. Only the trigger check and the hook
// intake ever see the plain value.
import type { TriggerType } from '../../shared/schemas/triggers.js';
import type { SecretBox } from '../platform/secret-box.js';

export interface StoredTrigger {
  type: TriggerType;
  config: Record<string, unknown>;
}

export interface TriggerWrite {
  type: TriggerType;
  config?: Record<string, unknown> | undefined;
}

/** A trigger as stored (sealed) and as checked by the trigger rules (plain). */
export interface ResolvedTrigger {
  stored: StoredTrigger;
  plain: StoredTrigger;
}

/**
 * Resolves a written trigger against the stored one: `secret` omitted keeps the stored secret (of
 * a webhook trigger), `secret: null` removes it, a string replaces it. `has_secret` is read-only
 * and ignored, so a trigger read back from GET can be sent again unchanged.
 */
export function resolveTrigger(
  input: TriggerWrite,
  previous: StoredTrigger | null,
  box: SecretBox,
): ResolvedTrigger {
  const { has_secret: _readOnly, secret, ...rest } = input.config ?? {};
  if (input.type !== 'webhook' || secret === null) {
    const config = secret === null || secret === undefined ? rest : { ...rest, secret };
    return { stored: { type: input.type, config }, plain: { type: input.type, config } };
  }
  if (secret === undefined) {
    const kept = previous?.type === 'webhook' ? previous.config.secret : undefined;
    if (typeof kept !== 'string') {
      return {
        stored: { type: input.type, config: rest },
        plain: { type: input.type, config: rest },
      };
    }
    return {
      stored: { type: input.type, config: { ...rest, secret: kept } },
      plain: { type: input.type, config: { ...rest, secret: box.open(kept) } },
    };
  }
  return {
    // A value that is not a string is left for the trigger rules to refuse (400 with its param).
    stored: {
      type: input.type,
      config: { ...rest, secret: typeof secret === 'string' ? box.seal(secret) : secret },
    },
    plain: { type: input.type, config: { ...rest, secret } },
  };
}

/** The stored trigger with its secret opened, for the trigger rules on a write that kept it. */
export function openTrigger(stored: StoredTrigger, box: SecretBox): StoredTrigger {
  return resolveTrigger({ type: stored.type, config: withoutSecret(stored) }, stored, box).plain;
}

/** What views show: never the secret, `has_secret: true` when there is one. */
export function publicTrigger(stored: StoredTrigger): StoredTrigger {
  if (stored.config.secret === undefined) return stored;
  return { type: stored.type, config: { ...withoutSecret(stored), has_secret: true } };
}

function withoutSecret(stored: StoredTrigger): Record<string, unknown> {
  const { secret: _secret, ...rest } = stored.config;
  return rest;
}
