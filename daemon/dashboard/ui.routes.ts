// The dashboard at {app_url}/ui: login with a one-time token, the page shell and its files, a
// JSON API for the pages and a server-sent event stream for live updates. It acts as the local
// operator through the same services the REST API and the control channel call (approve,
// cancel, run again, resend, resume, clock advance): no second implementation of any of them.
import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { ListQuery } from '../../shared/schemas/common.js';
import { EVENT_TYPES } from '../../shared/schemas/events.js';
import { WORKFLOW_EXECUTION_STATUSES } from '../../shared/schemas/workflows.js';
import type { Clock } from '../time/clock.js';
import type { DaemonStatus } from '../control/deps.js';
import { ApiError } from '../domain/errors.js';
import type { Page } from '../domain/pages.js';
import type { ServerUrls } from '../domain/urls.js';
import { sendError, toApiError } from '../http/error-handler.js';
import type { AgentService } from '../agents/agent.service.js';
import type { ExecutionService } from '../agents/execution.service.js';
import type { EventService } from '../events/event.service.js';
import type { ClockService } from '../time/clock.service.js';
import type { DeliveryService } from '../webhooks/deliveries/delivery.service.js';
import type { WebhookService } from '../webhooks/webhook.service.js';
import type { ExecutionsService } from '../workflows/executions.service.js';
import type { WorkflowService } from '../workflows/workflow.service.js';
import type { WorkflowEngine } from '../engine/engine.js';
import type { WorkspaceService } from '../workspaces/workspace.service.js';
import { loadAssets, type Asset } from './assets.js';
import { refuse, SECURITY_HEADERS, setSecurityHeaders } from './guard.js';
import { laneOf } from './lanes.js';
import { loginNeededPage, notBuiltPage, shellPage } from './pages.js';
import { DashboardSessions, type DashboardSession } from './sessions.js';

/** The services the dashboard reads and drives (the composition root passes its own). */
export interface DashboardServices {
  agents: AgentService;
  clockService: ClockService;
  deliveries: DeliveryService;
  engine: WorkflowEngine;
  events: EventService;
  executions: ExecutionService;
  runs: ExecutionsService;
  webhooks: WebhookService;
  workflows: WorkflowService;
  workspaces: WorkspaceService;
}

export interface DashboardOptions {
  services: DashboardServices;
  urls: ServerUrls;
  sessions: DashboardSessions;
  clock: Clock;
  status(): DaemonStatus;
  /** Defaults to the built files in dist/ui. */
  assets?: Map<string, Asset>;
}

const WorkspaceQuery = z.strictObject({ workspace: z.string().max(100).optional() });
const PageQuery = ListQuery.extend({ workspace: z.string().max(100).optional() });
const RunListQuery = PageQuery.extend({
  workflow_id: z.string().max(100).optional(),
  status: z.enum(WORKFLOW_EXECUTION_STATUSES).optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
});
const EventListQuery = PageQuery.extend({ type: z.string().max(500).optional() });
const DeliveryListQuery = PageQuery.extend({
  status: z.enum(['pending', 'delivered', 'failed']).optional(),
});
const ApprovalBody = z.strictObject({
  agent_id: z.string().min(1).max(100),
  decision: z.enum(['approve', 'reject']),
  notes: z.string().max(1000).optional(),
});
const AdvanceBody = z.strictObject({
  ms: z
    .number()
    .int()
    .min(1)
    .max(366 * 86_400_000),
});

/** The cookie is per port: two daemons on one machine share a cookie jar, not a session. */
function cookieName(urls: ServerUrls): string {
  return `svc_ui_${new URL(urls.app).port || '80'}`;
}

/** Registers /ui in its own scope: its guard, cookies and errors touch no other route. */
export async function dashboardRoutes(app: FastifyInstance, options: DashboardOptions) {
  await app.register(async (scope) => {
    await scope.register(cookie);
    const dashboard = new Dashboard(options);
    dashboard.install(scope);
  });
}

class Dashboard {
  private readonly assets: Map<string, Asset>;
  private readonly streams = new Set<ServerResponse>();

  constructor(private readonly options: DashboardOptions) {
    this.assets = options.assets ?? loadAssets();
  }

  install(scope: FastifyInstance): void {
    const { services, urls } = this.options;
    // Every route of this scope is the dashboard's, and the guard runs on each one as routed:
    // the router decodes the path (/%75i/api/session is /ui/api/session) and takes an
    // absolute-form target (GET http://host/ui/...), so the raw URL must not decide.
    scope.addHook('onRequest', (request, reply, done) => {
      setSecurityHeaders(reply);
      const refusal = refuse(request, urls);
      if (refusal) {
        void reply.code(refusal.status).type('text/plain; charset=utf-8').send(refusal.message);
        return;
      }
      done();
    });
    scope.setErrorHandler((error, request, reply) => {
      const apiError = toApiError(
        error as Parameters<typeof toApiError>[0],
        this.options.status().data_dir,
      );
      if (!(error instanceof ApiError) && apiError.status >= 500) {
        request.log.error({ err: error, req_id: request.id }, 'dashboard request failed');
      }
      return sendError(request, reply, apiError, this.options.clock, urls);
    });
    // A server-sent event stream stays open: end them so that the daemon can stop.
    scope.addHook('onClose', (_instance, done) => {
      for (const stream of this.streams) stream.end();
      this.streams.clear();
      done();
    });

    scope.get('/ui/login', (request, reply) => this.login(request, reply));
    scope.post('/ui/logout', (request, reply) => {
      this.requireSession(request);
      this.options.sessions.end(request.cookies[cookieName(urls)]);
      void reply.clearCookie(cookieName(urls), { path: '/ui' });
      return { logged_out: true };
    });
    scope.get('/ui/assets/*', (request, reply) => this.asset(request, reply));
    scope.get('/ui', (request, reply) => this.shell(request, reply));
    scope.get('/ui/*', (request, reply) => this.shell(request, reply));

    // --- the pages' data (a session needed for each) ------------------------------------------
    const read = <Q extends z.ZodType<{ workspace?: string | undefined }>>(
      path: string,
      query: Q,
      handler: (input: z.infer<Q>, workspaceId: string, request: FastifyRequest) => unknown,
    ) =>
      scope.get(path, (request, reply) => {
        this.requireSession(request);
        const input = parse(query, request.query);
        void reply.header('cache-control', 'no-store');
        return handler(input, this.workspaceOf(input), request);
      });
    const act = <B extends z.ZodType>(
      path: string,
      body: B,
      handler: (input: z.infer<B>, workspaceId: string, request: FastifyRequest) => unknown,
    ) =>
      scope.post(path, (request, reply) => {
        const session = this.requireSession(request);
        const csrf = request.headers['x-csrf-token'];
        if (!DashboardSessions.csrfMatches(session, typeof csrf === 'string' ? csrf : undefined)) {
          throw new ApiError(
            'csrf_token_invalid',
            'Missing or wrong CSRF token: reload the dashboard page and try again.',
          );
        }
        const workspace = parse(WorkspaceQuery, request.query);
        void reply.header('cache-control', 'no-store');
        return handler(parse(body, request.body ?? {}), this.workspaceOf(workspace), request);
      });
    const params = (request: FastifyRequest) => request.params as Record<string, string>;

    scope.get('/ui/api/session', (request) => {
      const session = this.requireSession(request);
      const status = this.options.status();
      return {
        csrf_token: session.csrfToken,
        environment: status.environment,
        version: status.version,
        default_workspace_id: status.default_workspace_id,
        workspaces: services.workspaces.list().map((ws) => ({
          id: ws.id,
          name: ws.name,
          tier: ws.tier,
          default: ws.id === status.default_workspace_id,
        })),
      };
    });
    read('/ui/api/overview', WorkspaceQuery, (_input, workspaceId) => {
      const status = this.options.status();
      const approvals = services.executions.awaitingApproval(workspaceId, { limit: 5 });
      return {
        clock: services.clockService.show(),
        environment: status.environment,
        data_dir: status.data_dir,
        url: status.url,
        version: status.version,
        started_at: status.started_at,
        pending_timers: status.pending_timers,
        runs_last_hour: services.runs.statusCounts(workspaceId, 3_600_000),
        failing_webhooks: listOf(services.webhooks.list(workspaceId, { status: 'failed' })),
        awaiting_approval: listOf(approvals),
      };
    });
    read('/ui/api/workflows', WorkspaceQuery, (_input, workspaceId) =>
      listOf(services.workflows.list(workspaceId, { limit: 100 })),
    );
    read('/ui/api/runs', RunListQuery, (input, workspaceId) =>
      listOf(
        services.runs.listInWorkspace(workspaceId, {
          ...input,
          from: input.from === undefined ? undefined : Date.parse(input.from),
          to: input.to === undefined ? undefined : Date.parse(input.to),
        }),
      ),
    );
    read('/ui/api/runs/:execution_id', WorkspaceQuery, (_input, workspaceId, request) => {
      const detail = services.runs.detail(workspaceId, params(request).execution_id!);
      return { ...detail, lanes: laneOf(detail.steps) };
    });
    act('/ui/api/runs/:execution_id/cancel', z.strictObject({}), (_input, workspaceId, request) =>
      services.runs.cancelInWorkspace(workspaceId, params(request).execution_id!),
    );
    act(
      '/ui/api/runs/:execution_id/run-again',
      z.strictObject({}),
      async (_input, workspaceId, request) =>
        (await services.runs.runAgain(workspaceId, params(request).execution_id!)).execution,
    );
    read('/ui/api/approvals', PageQuery, (input, workspaceId) => {
      const page = listOf(services.executions.awaitingApproval(workspaceId, input));
      return {
        ...page,
        data: page.data.map((execution) => ({
          ...execution,
          agent_name: services.agents.find(execution.agent_id)?.name ?? null,
          workflow_execution_id: services.runs.runAwaiting(execution.execution_id),
        })),
      };
    });
    act('/ui/api/approvals/:execution_id', ApprovalBody, (input, workspaceId, request) =>
      services.executions.decideApproval(
        workspaceId,
        input.agent_id,
        params(request).execution_id!,
        input.decision,
        input.notes,
      ),
    );
    read('/ui/api/webhooks', PageQuery, (input, workspaceId) =>
      listOf(services.webhooks.list(workspaceId, input)),
    );
    act('/ui/api/webhooks/:webhook_id/resume', z.strictObject({}), (_input, workspaceId, request) =>
      services.webhooks.update(workspaceId, params(request).webhook_id!, { status: 'active' }),
    );
    read(
      '/ui/api/webhooks/:webhook_id/deliveries',
      DeliveryListQuery,
      (input, workspaceId, request) =>
        listOf(services.deliveries.list(workspaceId, params(request).webhook_id!, input)),
    );
    read(
      '/ui/api/webhooks/:webhook_id/deliveries/:delivery_id',
      WorkspaceQuery,
      (_input, workspaceId, request) =>
        services.deliveries.attemptLog(
          workspaceId,
          params(request).webhook_id!,
          params(request).delivery_id!,
        ),
    );
    act(
      '/ui/api/webhooks/:webhook_id/deliveries/:delivery_id/resend',
      z.strictObject({}),
      async (_input, workspaceId, request) => {
        const { webhook_id: webhookId, delivery_id: deliveryId } = params(request);
        await services.deliveries.retryNow(workspaceId, webhookId!, deliveryId!);
        return services.deliveries.attemptLog(workspaceId, webhookId!, deliveryId!);
      },
    );
    read('/ui/api/events', EventListQuery, (input, workspaceId) => {
      const page = services.events.list(workspaceId, input);
      return listOf({ ...page, items: page.items.map((item) => JSON.parse(item.json) as object) });
    });
    read('/ui/api/event-types', WorkspaceQuery, () => EVENT_TYPES);
    read('/ui/api/clock', WorkspaceQuery, () => services.clockService.show());
    act('/ui/api/clock/advance', AdvanceBody, (input) => services.clockService.advance(input.ms));
    scope.get('/ui/api/stream', (request, reply) => this.stream(request, reply));
  }

  private login(request: FastifyRequest, reply: FastifyReply) {
    const token = (request.query as { token?: unknown }).token;
    const redeemed =
      typeof token === 'string' && token.length <= 200
        ? this.options.sessions.redeem(token)
        : undefined;
    if (!redeemed) {
      return reply
        .code(401)
        .type('text/html; charset=utf-8')
        .send(
          loginNeededPage(
            'This login link is not valid: it was already used, it expired (links last 5 minutes), or it was copied wrong.',
          ),
        );
    }
    void reply.setCookie(cookieName(this.options.urls), redeemed.sessionId, {
      path: '/ui',
      httpOnly: true,
      sameSite: 'strict',
    });
    // 303 to a URL without the token: it never stays in the address bar or the history.
    return reply.code(303).header('cache-control', 'no-store').redirect('/ui');
  }

  private shell(request: FastifyRequest, reply: FastifyReply) {
    const rest = (request.params as { '*'?: string })['*'] ?? '';
    if (rest === 'api' || rest.startsWith('api/')) {
      throw new ApiError('not_found', `No dashboard API at /ui/${rest}.`);
    }
    if (!this.session(request)) {
      return reply
        .code(401)
        .type('text/html; charset=utf-8')
        .send(loginNeededPage('You are not logged in (or the daemon restarted since).'));
    }
    if (!this.assets.has('app.js')) {
      return reply.code(503).type('text/html; charset=utf-8').send(notBuiltPage());
    }
    return reply
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(shellPage());
  }

  private asset(request: FastifyRequest, reply: FastifyReply) {
    const name = (request.params as { '*': string })['*'];
    const asset = this.assets.get(name);
    if (!asset) throw new ApiError('not_found', `No dashboard file ${name}.`);
    if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    return reply
      .header('etag', asset.etag)
      .header('cache-control', 'no-cache')
      .type(asset.type)
      .send(asset.body);
  }

  /** Live updates for one workspace: events, run changes, delivery attempts, clock moves. */
  private stream(request: FastifyRequest, reply: FastifyReply) {
    this.requireSession(request);
    const workspaceId = this.workspaceOf(parse(WorkspaceQuery, request.query));
    const { events, deliveries, engine, clockService } = this.options.services;
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-request-id': request.id,
    });
    raw.write('retry: 2000\n\n');
    const send = (type: string, data: unknown) =>
      raw.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
    const onEvent = (event: { workspace_id: string }) => {
      if (event.workspace_id === workspaceId) send('event', event);
    };
    const onAttempt = (activity: { workspace_id: string }) => {
      if (activity.workspace_id === workspaceId) send('delivery', activity);
    };
    const onClock = () => send('clock', clockService.show());
    events.on('published', onEvent);
    deliveries.on('attempted', onAttempt);
    clockService.on('moved', onClock);
    const stopRuns = engine.onRunChange((change) => {
      if (change.workspace_id === workspaceId) send('run', change);
    });
    // A comment now and then keeps proxies and the browser from dropping an idle stream.
    const heartbeat = setInterval(() => raw.write(': ping\n\n'), 15_000);
    heartbeat.unref();
    this.streams.add(raw);
    const close = () => {
      clearInterval(heartbeat);
      events.off('published', onEvent);
      deliveries.off('attempted', onAttempt);
      clockService.off('moved', onClock);
      stopRuns();
      this.streams.delete(raw);
    };
    raw.on('close', close);
    request.raw.on('close', close);
  }

  private session(request: FastifyRequest): DashboardSession | undefined {
    return this.options.sessions.session(request.cookies[cookieName(this.options.urls)]);
  }

  private requireSession(request: FastifyRequest): DashboardSession {
    const session = this.session(request);
    if (!session) {
      throw new ApiError(
        'unauthorized',
        'Not logged in to the dashboard. Run `svc dashboard` for a login link.',
      );
    }
    return session;
  }

  private workspaceOf(input: { workspace?: string | undefined }): string {
    return this.options.services.workspaces.existingId(input.workspace, 'workspace');
  }
}

function parse<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const param = issue.path.join('.') || undefined;
  throw new ApiError('invalid_parameter', `${param ?? 'input'}: ${issue.message}`, { param });
}

/** A page as the REST lists send it: data, has_more, total_count and the next cursor. */
function listOf<T>(page: Page<T>) {
  const last = page.items.at(-1) as { id?: string; execution_id?: string } | undefined;
  return {
    data: page.items,
    has_more: page.hasMore,
    total_count: page.totalCount,
    next_cursor: page.hasMore ? (last?.id ?? last?.execution_id ?? null) : null,
  };
}
