// How apps and grants look on the control channel (and so in `svc oauth ... --json`).
import { toIso } from '../time/clock.js';
import type { OAuthApp, OAuthGrant } from './oauth.service.js';

export function appView(app: OAuthApp) {
  return {
    client_id: app.client_id,
    name: app.name,
    workspace_id: app.workspace_id,
    redirect_uris: app.redirect_uris,
    scopes: app.scopes,
    public: app.public,
    token_endpoint_auth_method: app.token_endpoint_auth_method,
    client_secret_hint: app.client_secret_hint === null ? null : `...${app.client_secret_hint}`,
    created_at: toIso(app.created_at),
  };
}

export function grantView(grant: OAuthGrant) {
  return {
    id: grant.id,
    client_id: grant.client_id,
    app_name: grant.app_name,
    user_id: grant.user_id,
    workspace_id: grant.workspace_id,
    scopes: grant.scopes,
    status: grant.status,
    active_tokens: grant.active_tokens,
    created_at: toIso(grant.created_at),
    last_used_at: toIso(grant.last_used_at),
    revoked_at: toIso(grant.revoked_at),
    revoked_reason: grant.revoked_reason,
  };
}
