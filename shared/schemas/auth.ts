import { z } from 'zod';
import { SCOPES } from '../scopes.js';
import { TIERS } from '../tiers.js';

export const Me = z
  .object({
    user_id: z.string(),
    workspace_id: z.string(),
    scopes: z.array(z.enum(SCOPES)),
    tier: z.enum(TIERS),
    environment: z.enum(['sandbox', 'production']),
    credential_type: z.enum(['api_key', 'operator', 'oauth']),
  })
  .meta({ title: 'Me' });

export type MeView = z.infer<typeof Me>;
