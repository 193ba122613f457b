// The dashboard at {app_url}/ui: login with a one-time token, the page shell and its files, a
// JSON API for the pages and a server-sent event stream for live updates. It acts as the local
// operator through the same services the REST API and the control channel call (approve,
// cancel, run again, resend, resume, clock advance, fault rules, secrets): no second
// implementation of any of them.
import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import type { Clock } from '../time/clock.js';
import type { DaemonStatus } from '../control/deps.js';
import { ApiError } from '../domain/errors.js';
import type { ServerUrls } from '../domain/urls.js';
import { sendError, toApiError } from '../http/error-handler.js';
import { apiKit, parse, WorkspaceQuery } from './api-kit.js';
import { loadAssets, type Asset } from './assets.js';
import type { DashboardServices } from './deps.js';
import { findApi } from './find.api.js';
import { watchApi } from './watch.api.js';
import { driveApi } from './drive.api.js';
import { keysApi } from './keys.api.js';
import { faultsApi } from './faults.api.js';
import { secretsApi } from './secrets.api.js';
import { triggerApi } from './trigger.api.js';
import { replayApi } from './replay.api.js';
import { workflowApi } from './workflow.api.js';
import { agentsApi } from './agents.api.js';
import { historyApi } from './history.api.js';
import { sessionApi } from './session.api.js';
import { templatesApi } from './templates.api.js';
import { refuse, SECURITY_HEADERS, setSecurityHeaders } from './guard.js';
import { landingPath, reopenCommand } from './links.js';
import { Locator } from './locate.js';
import type { LiveData, LiveType } from './contract.js';
import { loginNeededPage, notBuiltPage, shellPage } from './pages.js';
import { DashboardSessions, type DashboardSession } from './sessions.js';

export type { DashboardServices } from './deps.js';

export interface DashboardOptions {
  services: DashboardServices;
  urls: ServerUrls;
  sessions: DashboardSessions;
  clock: Clock;
  status(): DaemonStatus;
  /** Defaults to the built files in dist/ui. */
  assets?: Map<string, Asset>;
}

/**
 * The cookie is per port: two daemons on one machine share a cookie jar, not a session. Unless
 * they serve one sandbox and share its sessions (team mode): then one name for all of them, so
 * that a login on one daemon's dashboard is sent to the others' too.
 */
function cookieName({ urls, sessions }: Pick<DashboardOptions, 'urls' | 'sessions'>): string {
  return sessions.cookieName ?? `svc_ui_${new URL(urls.app).port || '80'}`;
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
  private readonly locator: Locator;

  constructor(private readonly options: DashboardOptions) {
    this.assets = options.assets ?? loadAssets();
    this.locator = new Locator(options.services);
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
      this.options.sessions.end(request.cookies[cookieName(this.options)]);
      void reply.clearCookie(cookieName(this.options), { path: '/ui' });
      return { logged_out: true };
    });
    scope.get('/ui/assets/*', (request, reply) => this.asset(request, reply));
    scope.get('/ui', (request, reply) => this.shell(request, reply));
    scope.get('/ui/*', (request, reply) => this.shell(request, reply));

    // --- the pages' data (a session needed for each) ------------------------------------------
    const kit = apiKit(scope, {
      requireSession: (request) => this.requireSession(request),
      workspaceOf: (input) => this.workspaceOf(input),
    });
    sessionApi(
      kit,
      services,
      () => this.options.status(),
      (request) => this.requireSession(request),
    );
    watchApi(kit, services, () => this.options.status(), this.options.clock);
    findApi(kit, services, this.locator);
    workflowApi(kit, services, urls);
    driveApi(kit, services, this.options.clock, () => this.options.status());
    keysApi(kit, services, this.options.clock);
    faultsApi(kit, services);
    secretsApi(kit, services);
    triggerApi(kit, services, (inject) => scope.inject(inject));
    replayApi(kit, services, this.options.clock);
    agentsApi(kit, services);
    historyApi(kit, services);
    templatesApi(kit, services);
    scope.get('/ui/api/stream', (request, reply) => this.stream(request, reply));
  }

  private login(request: FastifyRequest, reply: FastifyReply) {
    const { token, next } = request.query as { token?: unknown; next?: unknown };
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
            reopenCommand(landingPath(next) ?? ''),
          ),
        );
    }
    void reply.setCookie(cookieName(this.options), redeemed.sessionId, {
      path: '/ui',
      httpOnly: true,
      sameSite: 'strict',
    });
    // 303 to a URL without the token: it never stays in the address bar or the history. The
    // page the link names if it is one of the dashboard's, else the Overview.
    return reply
      .code(303)
      .header('cache-control', 'no-store')
      .redirect(landingPath(next) ?? '/ui');
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
        .send(
          loginNeededPage(
            'You are not logged in (or the daemon restarted since).',
            reopenCommand(request.url),
          ),
        );
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
    const { hooks, clockService } = this.options.services;
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
    // Only the messages the contract declares, each with its data's type (contract.ts).
    const send = <K extends LiveType>(type: K, data: LiveData<K>) =>
      raw.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
    // This connection's listeners of the hooks (domain/hooks.ts), removed when it closes.
    const stops = [
      hooks.add('eventPublished', (event) => {
        if (event.workspace_id === workspaceId) send('event', event);
      }),
      hooks.add('deliveryAttempted', (activity) => {
        if (activity.workspace_id === workspaceId) send('delivery', activity);
      }),
      hooks.add('clockMoved', () => void send('clock', clockService.show())),
      hooks.add('runChanged', (change) => {
        if (change.workspace_id === workspaceId) send('run', change);
      }),
    ];
    // A comment now and then keeps proxies and the browser from dropping an idle stream.
    const heartbeat = setInterval(() => raw.write(': ping\n\n'), 15_000);
    heartbeat.unref();
    this.streams.add(raw);
    const close = () => {
      clearInterval(heartbeat);
      for (const stop of stops) stop();
      this.streams.delete(raw);
    };
    raw.on('close', close);
    request.raw.on('close', close);
  }

  private session(request: FastifyRequest): DashboardSession | undefined {
    return this.options.sessions.session(request.cookies[cookieName(this.options)]);
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
