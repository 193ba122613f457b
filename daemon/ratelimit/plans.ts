// The rate limits of the spec's two plan tables and its per-operation table, as data.
// Growth is Business. Free has no daily figure in the spec: 2,000/day is our choice.
// Enterprise is "custom": every figure is Business times a daemon setting (default 100).
import { TIERS, type Tier } from '../../shared/tiers.js';
import type { BucketHit, BucketSpec } from './limiter.js';

export type { Tier };

/** Enterprise limits are Business limits times this (SVC_ENTERPRISE_RATE_MULTIPLIER). */
export const DEFAULT_ENTERPRISE_MULTIPLIER = 100;

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

interface TierRate {
  perMinute: number;
  burstPerSecond: number;
  perDay: number;
}

const TIER_RATES: Record<Exclude<Tier, 'enterprise'>, TierRate> = {
  free: { perMinute: 20, burstPerSecond: 5, perDay: 2_000 },
  starter: { perMinute: 60, burstPerSecond: 15, perDay: 10_000 },
  business: { perMinute: 300, burstPerSecond: 50, perDay: 100_000 },
};

export const OPERATIONS = {
  'agents.create': { limit: 10, windowMs: HOUR },
  'agents.execute': { limit: 100, windowMs: MINUTE },
  'agents.deploy': { limit: 10, windowMs: MINUTE },
  'workflows.create': { limit: 20, windowMs: HOUR },
  'workflows.execute': { limit: 100, windowMs: MINUTE },
  'webhooks.create': { limit: 10, windowMs: HOUR },
  'webhooks.test': { limit: 20, windowMs: HOUR },
  /** "All other agent, workflow and webhook endpoints". */
  resources: { limit: 60, windowMs: MINUTE },
  'oauth.authorize': { limit: 10, windowMs: MINUTE },
  'oauth.token': { limit: 20, windowMs: MINUTE },
  'auth.me': { limit: 60, windowMs: MINUTE },
  'registry.invoke': { limit: 60, windowMs: MINUTE },
  'shortcuts.resolve': { limit: 120, windowMs: MINUTE },
  'registry.discover': { limit: 120, windowMs: MINUTE },
  'marketplace.publish': { limit: 5, windowMs: MINUTE },
} as const satisfies Record<string, { limit: number; windowMs: number }>;

export type Operation = keyof typeof OPERATIONS;

export class RatePlans {
  private readonly tierSpecs: Record<Tier, BucketSpec[]>;
  /** Per operation and tier, made once: a request only looks its bucket up. */
  private readonly operationSpecs: Record<Operation, Record<Tier, BucketSpec>>;

  /** @param enterpriseMultiplier how many times Business an Enterprise workspace gets. */
  constructor(enterpriseMultiplier: number) {
    const rates: Record<Tier, TierRate> = {
      ...TIER_RATES,
      enterprise: {
        perMinute: TIER_RATES.business.perMinute * enterpriseMultiplier,
        burstPerSecond: TIER_RATES.business.burstPerSecond * enterpriseMultiplier,
        perDay: TIER_RATES.business.perDay * enterpriseMultiplier,
      },
    };
    this.tierSpecs = Object.fromEntries(
      TIERS.map((tier) => [
        tier,
        [
          spec(`${tier}.burst`, rates[tier].burstPerSecond, SECOND, 'requests per second (burst)'),
          spec(`${tier}.minute`, rates[tier].perMinute, MINUTE, 'requests per minute'),
          spec(`${tier}.day`, rates[tier].perDay, DAY, 'requests per day'),
        ],
      ]),
    ) as Record<Tier, BucketSpec[]>;
    this.operationSpecs = Object.fromEntries(
      Object.entries(OPERATIONS).map(([operation, base]) => {
        const per = base.windowMs === HOUR ? 'hour' : 'minute';
        const specs = TIERS.map((tier) => {
          const limit = tier === 'enterprise' ? base.limit * enterpriseMultiplier : base.limit;
          return [
            tier,
            spec(`op.${operation}`, limit, base.windowMs, `${operation} requests per ${per}`),
          ];
        });
        return [operation, Object.fromEntries(specs)];
      }),
    ) as Record<Operation, Record<Tier, BucketSpec>>;
  }

  /** Request-rate buckets of a tier, counted per credential. */
  forCredential(tier: Tier, credentialId: string): BucketHit[] {
    return this.tierSpecs[tier].map((bucket) => ({ spec: bucket, key: credentialId }));
  }

  /** The per-operation bucket, counted per workspace (and per object where the spec says so). */
  forOperation(operation: Operation, tier: Tier, key: string): BucketHit {
    return { spec: this.operationSpecs[operation][tier], key };
  }
}

function spec(name: string, limit: number, windowMs: number, what: string): BucketSpec {
  return { name, limit, windowMs, describe: `${limit} ${what}` };
}
