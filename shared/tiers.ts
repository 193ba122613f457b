// Workspace tiers (the spec's plan names; Growth is Business).
export const TIERS = ['free', 'starter', 'business', 'enterprise'] as const;
export type Tier = (typeof TIERS)[number];
