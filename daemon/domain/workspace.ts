// A workspace (tenant) as every layer sees it: the access guard resolves it from X-Tenant-ID,
// routes pass it to services, services apply its tier's rules.
import type { Tier } from '../../shared/tiers.js';

export interface Workspace {
  id: string;
  name: string;
  tier: Tier;
  ownerId: string;
  createdAt: number;
}
