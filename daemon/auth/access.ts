// The gate every authenticated route passes, in order: credential (401), tenant (400/403),
// scope (403), rate limits (429). It leaves the request's context and the rate-limit headers.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hasScope } from '../../shared/scopes.js';
import type { Credential } from '../domain/credential.js';
import type { CredentialService } from './credential.service.js';
import type { Clock } from '../time/clock.js';
import type { Limiter, BucketState } from '../ratelimit/limiter.js';
import type { RatePlans } from '../ratelimit/plans.js';
import type { Workspace } from '../domain/workspace.js';
import type { WorkspaceService } from '../workspaces/workspace.service.js';
import { ApiError, missingFields } from '../domain/errors.js';
import type { RequestContext, RouteAuth, RouteGuard, RouteRateLimit } from '../http/route.js';

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

export const API_KEY_QUERY_WARNING =
  '299 svc "The api_key query parameter is not recommended: it ends up in logs and browser history. Send Authorization: Bearer <key>."';

export class AccessGuard implements RouteGuard {
  constructor(
    private readonly credentials: CredentialService,
    private readonly workspaces: WorkspaceService,
    private readonly limiter: Limiter,
    private readonly plans: RatePlans,
    private readonly clock: Clock,
  ) {}

  check(
    request: FastifyRequest,
    reply: FastifyReply,
    auth: Extract<RouteAuth, { kind: 'credential' }>,
    rateLimit: RouteRateLimit | undefined,
  ): RequestContext {
    const credential = this.credentials.resolve(this.token(request, reply));
    const workspace = this.workspace(request, credential, auth.tenant);
    if (auth.scope && !hasScope(credential.scopes, auth.scope)) {
      throw new ApiError(
        'insufficient_scope',
        `This operation needs the scope '${auth.scope}', which this credential does not have. Use a key created with --scopes "${auth.scope}" (or admin).`,
        { extras: { required_scope: auth.scope } },
      );
    }
    this.limit(request, reply, credential, workspace, rateLimit);
    return { credential, workspace };
  }

  private token(request: FastifyRequest, reply: FastifyReply): string {
    const header = request.headers.authorization;
    if (header !== undefined) {
      const match = BEARER.exec(header);
      if (!match) {
        throw new ApiError('invalid_token', 'The Authorization header must be "Bearer <API key>".');
      }
      return match[1]!;
    }
    const fromQuery = (request.query as Record<string, unknown> | undefined)?.api_key;
    if (typeof fromQuery === 'string' && fromQuery !== '') {
      reply.header('Warning', API_KEY_QUERY_WARNING);
      return fromQuery;
    }
    throw new ApiError(
      'missing_authentication',
      'No credential was sent. Send "Authorization: Bearer <API key>"; create a key with: svc keys create',
    );
  }

  private workspace(
    request: FastifyRequest,
    credential: Credential,
    tenantScoped: boolean,
  ): Workspace {
    const header = request.headers['x-tenant-id'];
    // Node joins a repeated header with ", ".
    if (Array.isArray(header) || header?.includes(',')) {
      throw new ApiError(
        'invalid_parameter',
        'Send the X-Tenant-ID header once, with one workspace id.',
        { param: 'X-Tenant-ID' },
      );
    }
    if (header === undefined || header === '') {
      if (tenantScoped) {
        throw missingFields(
          ['X-Tenant-ID'],
          'This endpoint is tenant-scoped: send the header X-Tenant-ID with your workspace id (ws_...). See it with: svc workspaces list',
        );
      }
      return this.workspaces.get(credential.workspaceId ?? this.workspaces.defaultWorkspaceId)!;
    }
    const workspace = this.workspaces.get(header);
    const allowed =
      workspace !== undefined &&
      (credential.workspaceId === null
        ? workspace.ownerId === credential.userId
        : credential.workspaceId === workspace.id);
    if (!allowed) {
      throw new ApiError(
        'tenant_forbidden',
        `This credential may not use workspace '${header}'. Send the X-Tenant-ID of the workspace the key was created for.`,
        { param: 'X-Tenant-ID' },
      );
    }
    return workspace;
  }

  private limit(
    request: FastifyRequest,
    reply: FastifyReply,
    credential: Credential,
    workspace: Workspace,
    rateLimit: RouteRateLimit | undefined,
  ): void {
    const buckets = this.plans.forCredential(workspace.tier, credential.id);
    if (rateLimit) {
      const per = rateLimit.perParam
        ? (request.params as Record<string, string>)[rateLimit.perParam]
        : undefined;
      buckets.push(
        this.plans.forOperation(
          rateLimit.operation,
          workspace.tier,
          per ? `${workspace.id}/${per}` : workspace.id,
        ),
      );
    }
    this.hit(reply, workspace, buckets);
  }

  /**
   * The per-operation limit for a request that carries no credential (a webhook trigger),
   * counted in the workspace's bucket for `key` (e.g. one workflow, like its execute calls).
   */
  limitOperation(
    reply: FastifyReply,
    workspace: Workspace,
    operation: RouteRateLimit['operation'],
    key: string,
  ): void {
    this.hit(reply, workspace, [
      this.plans.forOperation(operation, workspace.tier, `${workspace.id}/${key}`),
    ]);
  }

  private hit(
    reply: FastifyReply,
    workspace: Workspace,
    buckets: Parameters<Limiter['hit']>[0],
  ): void {
    const verdict = this.limiter.hit(buckets);
    if (verdict.tightest) setRateHeaders(reply, verdict.tightest);
    if (!verdict.allowed) {
      const { exceeded } = verdict;
      const retryAfter = Math.max(1, Math.ceil((exceeded.resetAt - this.clock.now()) / 1000));
      throw new ApiError(
        'rate_limit_exceeded',
        `Rate limit exceeded: ${exceeded.spec.describe} (${workspace.tier} tier). Retry in ${retryAfter} s, or use a workspace with a higher tier.`,
        {
          extras: {
            limit: exceeded.limit,
            remaining: 0,
            reset_at: new Date(exceeded.resetAt).toISOString(),
          },
          headers: { 'Retry-After': String(retryAfter) },
        },
      );
    }
  }
}

function setRateHeaders(reply: FastifyReply, state: BucketState): void {
  reply.header('X-RateLimit-Limit', state.limit);
  reply.header('X-RateLimit-Remaining', state.remaining);
  reply.header('X-RateLimit-Reset', Math.ceil(state.resetAt / 1000));
}
