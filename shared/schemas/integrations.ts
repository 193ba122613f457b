// Integrations: external services connected to a workspace. Credentials are write-only.
import { z } from 'zod';
import { DisplayName, ListQuery, Timestamp, workspaceObject } from './common.js';

export const IntegrationConnectBody = z.strictObject({
  provider: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,49}$/, 'must be a lowercase slug such as slack or salesforce')
    .meta({ description: 'Provider slug, e.g. slack, salesforce, zendesk' }),
  name: DisplayName.optional(),
  config: z.record(z.string(), z.unknown()).optional(),
  credentials: z.record(z.string(), z.string().max(4096)).optional().meta({
    description:
      'Write-only: stored sealed, never returned. An empty object {} holds none and is stored as none (has_credentials false), as when the field is left out',
  }),
});

export const Integration = workspaceObject({
  provider: z.string(),
  name: z.string(),
  status: z.enum(['connected']),
  config: z.record(z.string(), z.unknown()),
  has_credentials: z.boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
}).meta({ title: 'Integration' });

export type IntegrationView = z.infer<typeof Integration>;

export const IntegrationListQuery = ListQuery.extend({ provider: z.string().max(50).optional() });
export const IntegrationParams = z.strictObject({ integration_id: z.string() });
