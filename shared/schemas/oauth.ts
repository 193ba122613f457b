// The OAuth 2.0 provider's shapes: control-channel inputs (apps, grants), the token and revoke
// form bodies, the RFC 6749 token response, the RFC 6749 error body and the RFC 8414 metadata.
import { z } from 'zod';
import { DisplayName } from './common.js';
import { SCOPES } from '../scopes.js';

/** A redirect URI: absolute, no fragment (RFC 6749 §3.1.2); compared by exact string match. */
export const RedirectUri = z
  .string()
  .min(1)
  .max(2000)
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.hash === '' && !value.includes('#') && /^[a-z][a-z0-9+.-]*:$/i.test(url.protocol);
    } catch {
      return false;
    }
  }, 'must be an absolute URI without a #fragment');

export const OAuthAppCreateInput = z.strictObject({
  name: DisplayName,
  redirect_uris: z.array(RedirectUri).min(1).max(20),
  scopes: z.array(z.enum(SCOPES)).min(1),
  /** A public app (SPA, native) has no secret and must use PKCE. */
  public: z.boolean().optional(),
  workspace_id: z.string().optional(),
});
export type OAuthAppCreate = z.infer<typeof OAuthAppCreateInput>;

export const OAuthAppListInput = z.strictObject({ workspace_id: z.string().optional() }).optional();

export const OAuthAppIdInput = z.strictObject({ client_id: z.string().min(1) });

export const OAuthGrantListInput = z
  .strictObject({
    client_id: z.string().optional(),
    workspace_id: z.string().optional(),
    /** Revoked grants are hidden unless asked for. */
    include_revoked: z.boolean().optional(),
  })
  .optional();

export const OAuthGrantIdInput = z.strictObject({ id: z.string().min(1) });

/** An optional form field, described in the document. */
const optionalField = (description: string) => z.string().optional().meta({ description });

/** POST /v1/oauth/token, application/x-www-form-urlencoded. */
export const TokenRequestForm = z
  .object({
    grant_type: z.enum(['authorization_code', 'refresh_token']),
    code: optionalField('authorization_code: the code'),
    redirect_uri: optionalField(
      'authorization_code: exactly the redirect_uri of the authorization',
    ),
    code_verifier: optionalField('authorization_code: the PKCE verifier (RFC 7636)'),
    refresh_token: optionalField('refresh_token: the refresh token'),
    scope: optionalField('refresh_token: a narrower scope (space-separated); never wider'),
    client_id: optionalField('client_secret_post or public client; else HTTP Basic'),
    client_secret: optionalField('client_secret_post; or use HTTP Basic (client_secret_basic)'),
  })
  .meta({ title: 'TokenRequest' });

/** POST /v1/oauth/revoke (RFC 7009), application/x-www-form-urlencoded. */
export const RevokeRequestForm = z
  .object({
    token: z.string().meta({ description: 'An access or refresh token issued to this client' }),
    token_type_hint: z.enum(['access_token', 'refresh_token']).optional(),
    client_id: z.string().optional(),
    client_secret: z.string().optional(),
  })
  .meta({ title: 'RevokeRequest' });

const TokenFields = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int().meta({ description: 'Seconds; 3600' }),
  refresh_token: z.string(),
  scope: z.string().meta({ description: 'Space-separated scopes granted' }),
});

/** RFC 6749 §5.1 at the top level, the same object under `data` (decisions §6). */
export const TokenResponse = TokenFields.extend({
  data: TokenFields,
  meta: z.object({ request_id: z.string(), timestamp: z.string() }),
}).meta({ title: 'TokenResponse' });
export type TokenFieldsBody = z.infer<typeof TokenFields>;

export const RevokeResponse = z
  .object({
    data: z.object({}),
    meta: z.object({ request_id: z.string(), timestamp: z.string() }),
  })
  .meta({ title: 'RevokeResponse' });

/**
 * The token and revoke endpoints answer errors in RFC 6749 §5.2 form, which standard clients
 * read, not in the API's error envelope: these codes are protocol errors, kept apart from the
 * API's code table (shared/errors.ts).
 */
export const OAUTH_ERRORS = {
  invalid_request: {
    status: 400,
    description: 'A parameter is missing, repeated or malformed, or the body is not a form.',
  },
  invalid_client: {
    status: 401,
    description: 'Unknown client, wrong secret, or no client authentication (WWW-Authenticate).',
  },
  invalid_grant: {
    status: 400,
    description:
      'The code or refresh token is invalid, expired, used already (which revokes the grant), or for another client or redirect_uri; or the PKCE verifier is wrong.',
  },
  unauthorized_client: {
    status: 400,
    description: 'The client may not use this grant type.',
  },
  unsupported_grant_type: {
    status: 400,
    description: 'grant_type is neither authorization_code nor refresh_token.',
  },
  invalid_scope: {
    status: 400,
    description: 'The scope is unknown or wider than what was granted.',
  },
  rate_limit_exceeded: {
    status: 429,
    description: "Over the endpoint's limit for this client; see Retry-After.",
  },
  server_error: { status: 500, description: 'Unexpected error; see the daemon log.' },
} as const;
export type OAuthErrorCode = keyof typeof OAUTH_ERRORS;

export const OAuthErrorBody = z
  .object({
    error: z.enum(Object.keys(OAUTH_ERRORS) as [OAuthErrorCode, ...OAuthErrorCode[]]),
    error_description: z.string(),
  })
  .meta({ title: 'OAuthError' });

/** RFC 8414 authorization server metadata. */
export const AuthorizationServerMetadata = z
  .object({
    issuer: z.string(),
    authorization_endpoint: z.string(),
    token_endpoint: z.string(),
    revocation_endpoint: z.string(),
    response_types_supported: z.array(z.string()),
    response_modes_supported: z.array(z.string()),
    grant_types_supported: z.array(z.string()),
    code_challenge_methods_supported: z.array(z.string()),
    token_endpoint_auth_methods_supported: z.array(z.string()),
    revocation_endpoint_auth_methods_supported: z.array(z.string()),
    scopes_supported: z.array(z.string()),
    authorization_response_iss_parameter_supported: z.boolean(),
    service_documentation: z.string(),
  })
  .meta({ title: 'AuthorizationServerMetadata' });
