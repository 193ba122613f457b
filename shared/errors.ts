// The single table of error codes: the HTTP error handler, the OpenAPI document, /docs/errors,
// the step runner and `svc faults add --fail` all read it, so a code that is raised but not
// documented fails the build. Step codes (the underlying_error of a failed workflow step) are
// here too: a step fails with the same words as the API, and a fault rule can inject each one.

export type ErrorType =
  | 'authentication_error'
  | 'authorization_error'
  | 'resource_error'
  | 'validation_error'
  | 'rate_limit_error'
  | 'conflict_error'
  | 'timeout_error'
  | 'server_error'
  | 'integration_error';

export interface ErrorCodeInfo {
  status: number;
  type: ErrorType;
  /** One line for the OpenAPI document and the docs page. */
  description: string;
}

export const ERROR_CODES = {
  // Authentication (spec)
  missing_authentication: {
    status: 401,
    type: 'authentication_error',
    description: 'No Authorization header (or api_key query parameter) was sent.',
  },
  invalid_token: {
    status: 401,
    type: 'authentication_error',
    description: 'The key or token is malformed, expired, revoked or of the other environment.',
  },
  unauthorized: {
    status: 401,
    type: 'authentication_error',
    description: 'No authentication was provided (authentication table form).',
  },
  invalid_client: {
    status: 401,
    type: 'authentication_error',
    description: 'client_id or client_secret is invalid at the token endpoint.',
  },
  // Authorization (spec + added)
  insufficient_scope: {
    status: 403,
    type: 'authorization_error',
    description: 'The credential lacks a scope the operation needs.',
  },
  tier_restriction: {
    status: 403,
    type: 'authorization_error',
    description: 'The feature needs a higher workspace tier.',
  },
  guardrail_violation: {
    status: 403,
    type: 'authorization_error',
    description: "The action is blocked by the agent's guardrails.",
  },
  tenant_forbidden: {
    status: 403,
    type: 'authorization_error',
    description: 'The X-Tenant-ID names a workspace this credential may not use (added code).',
  },
  approval_rejected: {
    status: 403,
    type: 'authorization_error',
    description:
      'The reviewer rejected the action awaiting approval: the error of the cancelled agent execution, and the step code of a workflow step waiting on it (added code).',
  },
  csrf_token_invalid: {
    status: 403,
    type: 'authorization_error',
    description:
      'A dashboard action came without the CSRF token of its session: reload the dashboard page (added code).',
  },
  // Resources
  agent_not_found: {
    status: 404,
    type: 'resource_error',
    description: 'Agent id unknown or deleted.',
  },
  workflow_not_found: {
    status: 404,
    type: 'resource_error',
    description: 'Workflow id unknown or deleted.',
  },
  webhook_not_found: {
    status: 404,
    type: 'resource_error',
    description: 'Webhook id unknown or deleted.',
  },
  execution_not_found: {
    status: 404,
    type: 'resource_error',
    description: 'Execution id unknown or older than 30 days.',
  },
  not_found: {
    status: 404,
    type: 'resource_error',
    description: 'No such route or object (added code).',
  },
  secret_not_found: {
    status: 404,
    type: 'resource_error',
    description:
      'A workflow step names a workspace secret that is not set (svc secrets set NAME VALUE); a step code (added code).',
  },
  method_not_allowed: {
    status: 405,
    type: 'resource_error',
    description:
      'The route exists but not with this HTTP method; see the Allow header (added code).',
  },
  // Validation
  invalid_request_body: {
    status: 400,
    type: 'validation_error',
    description: 'The body is not valid JSON (or not the content type the route takes).',
  },
  missing_required_field: {
    status: 400,
    type: 'validation_error',
    description: 'A required field or header is absent; see param and required_fields.',
  },
  invalid_parameter: {
    status: 400,
    type: 'validation_error',
    description: 'A value is outside its format or enum; see param.',
  },
  invalid_autonomy_level: {
    status: 400,
    type: 'validation_error',
    description: 'The autonomy level is not one of L1 to L4.',
  },
  invalid_step_config: {
    status: 400,
    type: 'validation_error',
    description:
      'A workflow step is missing fields or malformed: a required config field, an expression that does not parse, or a secret used other than whole ({{secrets.NAME}} alone between the braces).',
  },
  circular_dependency: {
    status: 400,
    type: 'validation_error',
    description: 'The workflow steps form a loop.',
  },
  invalid_url: {
    status: 400,
    type: 'validation_error',
    description: 'The URL is malformed, or not HTTPS where HTTPS is required.',
  },
  invalid_event_type: {
    status: 400,
    type: 'validation_error',
    description: 'The event type is not one of the documented types.',
  },
  invalid_expression: {
    status: 400,
    type: 'validation_error',
    description:
      "A step's expression failed when the step ran: a condition reading a secret, or interpolation past 1,000,000 characters in a step or 10,000,000 in a run; a step code (added code).",
  },
  payload_too_large: {
    status: 413,
    type: 'validation_error',
    description: 'The body is over 1 MiB (10 MiB for uploads) (added code).',
  },
  // Conflicts and timeouts
  agent_not_active: {
    status: 409,
    type: 'conflict_error',
    description: 'The agent is paused, training or archived.',
  },
  workflow_not_active: {
    status: 409,
    type: 'conflict_error',
    description: 'The workflow is paused or archived (added code).',
  },
  execution_not_cancellable: {
    status: 409,
    type: 'conflict_error',
    description: 'The execution has already ended (added code).',
  },
  execution_cancelled: {
    status: 409,
    type: 'conflict_error',
    description:
      'The error of a workflow run that was cancelled: failed_step names the step it was cancelled at (added code).',
  },
  workflow_run_cancelled: {
    status: 409,
    type: 'conflict_error',
    description:
      'The error of an agent execution that a workflow step awaited approval from, cancelled with its run; deciding it afterwards is 409 conflict (added code).',
  },
  workflow_run_ended: {
    status: 409,
    type: 'conflict_error',
    description:
      'The error of an agent execution that a workflow step awaited approval from, cancelled because its run ended otherwise (failed, timed out, completed) or went on without the step (a parallel sibling won); its message says which and names the run. Deciding it afterwards is 409 conflict (added code).',
  },
  webhook_replayed: {
    status: 409,
    type: 'conflict_error',
    description:
      'A signed webhook-trigger request was already accepted: the same X-Svc-Signature over the same body started a run; sign the request again with a new timestamp (added code).',
  },
  conflict: {
    status: 409,
    type: 'conflict_error',
    description: 'The request conflicts with the current state of the object (added code).',
  },
  execution_timeout: {
    status: 408,
    type: 'timeout_error',
    description: 'The agent execution exceeded its timeout.',
  },
  workflow_timeout: {
    status: 408,
    type: 'timeout_error',
    description: 'The workflow exceeded settings.timeout_seconds.',
  },
  run_parked: {
    status: 409,
    type: 'conflict_error',
    description:
      'svc workflows wait (and run, trigger or rerun --wait, or the testing kit) on a run parked on the frozen sandbox clock: nothing happens until the clock moves or an approval is decided; the message says when the run wakes and the command that moves it on (added code).',
  },
  wait_timeout: {
    status: 408,
    type: 'timeout_error',
    description:
      'svc settle, svc workflows wait or the testing kit waited its whole timeout: the message names what was still pending; wait longer or look at what it names (added code).',
  },
  // Rate limits
  rate_limit_exceeded: {
    status: 429,
    type: 'rate_limit_error',
    description: 'Too many requests; see Retry-After and reset_at.',
  },
  // Server and integrations
  step_failed: { status: 500, type: 'server_error', description: 'A workflow step failed.' },
  delivery_failed: {
    status: 500,
    type: 'server_error',
    description: 'All webhook delivery attempts failed.',
  },
  internal_server_error: {
    status: 500,
    type: 'server_error',
    description: 'Unexpected error; the request id is in the daemon log.',
  },
  insufficient_storage: {
    status: 507,
    type: 'server_error',
    description:
      "The data dir's disk is full (or over a quota or file size limit): nothing was stored; free space and retry (added code).",
  },
  service_unavailable: {
    status: 503,
    type: 'server_error',
    description: 'The daemon is shutting down or temporarily unavailable.',
  },
  external_api_error: {
    status: 502,
    type: 'integration_error',
    description: 'A third-party service failed.',
  },
  integration_not_configured: {
    status: 502,
    type: 'integration_error',
    description: 'A required integration is not set up.',
  },
  integration_auth_failed: {
    status: 502,
    type: 'integration_error',
    description: 'Integration credentials expired or are invalid.',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;
