// What a request is allowed to do, whatever credential kind proved it.
import type { Scope } from '../../shared/scopes.js';
import type { Environment } from './environment.js';

export interface Credential {
  type: 'api_key' | 'operator' | 'oauth';
  /** The key id (the grant id for OAuth tokens, so a refresh keeps the count); rate limits count per credential. */
  id: string;
  userId: string;
  /** The one workspace the credential belongs to, or null for all of the user's workspaces. */
  workspaceId: string | null;
  scopes: ReadonlySet<Scope>;
  environment: Environment;
  expiresAt: number | null;
}
