// The control channel: what the CLI manages that the REST API does not (workspaces, keys,
// the clock, the daemon itself) and live streams. Loopback only, control-token auth.
import { isLoopback } from '../http/loopback.js';
import { initTRPC, TRPCError } from '@trpc/server';
import { z } from 'zod';
import type { FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { isAbsolute } from 'node:path';
import { on, type EventEmitter } from 'node:events';
import {
  ClockAdvanceInput,
  ClockSetInput,
  DeliveryStreamInput,
  EventStreamInput,
  EventTriggerInput,
  KeyCreateInput,
  KeyIdInput,
  KeyListInput,
  KeyRotateInput,
  StateExportInput,
  StateImportInput,
  WorkspaceCreateInput,
} from '../../shared/schemas/control.js';
import { toIso } from '../time/clock.js';
import { ApiError } from '../domain/errors.js';
import { issuesToError } from '../http/validation.js';
import type { KeyRecord } from '../keys/key.service.js';
import type { Workspace } from '../domain/workspace.js';
import { sampleEventData } from '../events/samples.js';
import { StubAddInput } from '../../shared/schemas/agents.js';
import { typeMatcher } from '../../shared/event-type-patterns.js';
import {
  SecretDeleteInput,
  SecretListInput,
  SecretSetInput,
} from '../../shared/schemas/workflows.js';
import { SecretNotFoundError } from '../secrets/secret.service.js';
import type { ControlDeps } from './deps.js';
import {
  OAuthAppCreateInput,
  OAuthAppIdInput,
  OAuthAppListInput,
  OAuthGrantIdInput,
  OAuthGrantListInput,
} from '../../shared/schemas/oauth.js';
import { appView, grantView } from '../oauth/oauth.views.js';
import { FixtureApplyInput, fixtureJsonSchema } from '../../shared/schemas/fixtures.js';
import { FaultAddInput, FaultIdInput, FaultListInput } from '../../shared/schemas/faults.js';
import { WebhookReplayInput } from '../../shared/schemas/replay.js';
import {
  asyncIterableOf,
  Cleared,
  ClockState,
  DaemonStatus,
  DashboardLoginLink,
  DeliveryActivity,
  EventOutput,
  FaultView,
  FixtureApplyResult,
  ImportAnswer,
  JsonSchemaDocument,
  KeyCreated,
  KeyRotated,
  KeyView,
  OAuthAppCreated,
  OAuthAppView,
  OAuthGrantView,
  OperatorCredential,
  RecordingState,
  ResetAnswer,
  SecretDeleted,
  SecretInfo,
  ShutdownAnswer,
  SnapshotWritten,
  StubView,
  WebhookReplayResult,
  WorkspaceView,
} from '../../shared/schemas/control-output.js';
import { insufficientStorage, isStorageFull } from '../store/storage-full.js';

export interface ControlContext {
  authorized: boolean;
  loopback: boolean;
  /** Named in the answer to a change the full disk could not take. */
  dataDir: string;
}

export function controlContextFactory(controlToken: string, dataDir: string) {
  const expected = Buffer.from(controlToken);
  // tRPC's adapter passes more than the request (CreateFastifyContextOptions); only it is read.
  return ({ req }: { req: FastifyRequest }): ControlContext => ({
    authorized: isAuthorized(req.headers.authorization, expected),
    loopback: isLoopback(req.socket.remoteAddress),
    dataDir,
  });
}

/** Whether an Authorization header carries the control token (compared in constant time). */
export function isAuthorized(header: string | undefined, expected: Buffer): boolean {
  const given = Buffer.from((header ?? '').replace(/^Bearer\s+/i, ''));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const t = initTRPC.context<ControlContext>().create({
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    return {
      ...shape,
      data: {
        ...shape.data,
        svc_code: cause instanceof ApiError ? cause.code : undefined,
        svc_param: cause instanceof ApiError ? cause.param : undefined,
        stack: undefined,
      },
    };
  },
});

/** Only a loopback caller with the control token gets in; service errors keep their code. */
const operator = t.procedure.use(async ({ ctx, next, getRawInput }) => {
  if (!ctx.loopback)
    throw new TRPCError({
      code: 'FORBIDDEN',
      message: 'The control channel answers loopback clients only.',
    });
  if (!ctx.authorized) {
    throw new TRPCError({
      code: 'UNAUTHORIZED',
      message: 'Missing or wrong control token (it is in the data dir, file control-token).',
    });
  }
  const result = await next();
  if (result.ok) return result;
  if (isStorageFull(result.error.cause)) {
    // As on the REST API (507): the CLI says the disk is full, not "internal error".
    const cause = insufficientStorage(ctx.dataDir);
    throw new TRPCError({ code: trpcCode(cause.status), message: cause.message, cause });
  }
  const cause = (await inputError(result.error.cause, getRawInput)) ?? result.error.cause;
  if (cause instanceof ApiError) {
    throw new TRPCError({ code: trpcCode(cause.status), message: cause.message, cause });
  }
  return result;
});

/**
 * An input its schema refused, as the REST API words a body's fields (one sentence naming the
 * field and the bound it missed, code and param), instead of tRPC's message: zod's issues as JSON.
 */
async function inputError(
  cause: unknown,
  getRawInput: () => Promise<unknown>,
): Promise<ApiError | undefined> {
  if (!(cause instanceof z.core.$ZodError)) return undefined;
  return issuesToError(cause.issues, await getRawInput(), 'body', {});
}

export function createControlRouter(deps: ControlDeps) {
  const { workspaces, keys, clock, clockService, events, deliveries, agents, stubs, daemon } = deps;
  const requireSandbox = (what: string) => {
    if (daemon.environment !== 'sandbox') {
      throw new ApiError('conflict', `${what} exist only in the sandbox environment.`);
    }
  };
  const requireAgent = (agentId: string) => {
    if (!agents.find(agentId))
      throw new ApiError('agent_not_found', `No agent ${agentId}. List them with: svc agents list`);
  };
  const storeSwap = () => {
    if (!deps.state.swap) {
      throw new ApiError('conflict', 'This daemon cannot swap its store (it runs without a host).');
    }
    return deps.state.swap;
  };
  return t.router({
    daemon: t.router({
      status: operator.output(DaemonStatus).query(() => daemon.status()),
      shutdown: operator.output(ShutdownAnswer).mutation(() => {
        daemon.requestShutdown();
        return { stopping: true };
      }),
    }),
    auth: t.router({
      operatorCredential: operator.output(OperatorCredential).query(() => ({
        key: keys.operatorCredential(),
        default_workspace_id: workspaces.defaultWorkspaceId,
        base_url: daemon.status().url + '/v1',
      })),
    }),
    workspaces: t.router({
      create: operator
        .input(WorkspaceCreateInput)
        .output(WorkspaceView)
        .mutation(({ input }) =>
          workspaceView(workspaces.create(input.name, input.tier), workspaces.defaultWorkspaceId),
        ),
      list: operator
        .output(z.array(WorkspaceView))
        .query(() =>
          workspaces.list().map((ws) => workspaceView(ws, workspaces.defaultWorkspaceId)),
        ),
    }),
    keys: t.router({
      create: operator
        .input(KeyCreateInput)
        .output(KeyCreated)
        .mutation(({ input }) => {
          const { key, record } = keys.create({
            name: input.name,
            scopes: input.scopes,
            workspaceId: input.workspace_id,
            expiresInMs: input.expires_in_ms,
          });
          return { ...keyView(record), key };
        }),
      list: operator
        .input(KeyListInput)
        .output(z.array(KeyView))
        .query(({ input }) =>
          keys.list(input?.workspace_id).map((record) => keyView(record, clock.now())),
        ),
      revoke: operator
        .input(KeyIdInput)
        .output(KeyView)
        .mutation(({ input }) => keyView(keys.revoke(input.id), clock.now())),
      rotate: operator
        .input(KeyRotateInput)
        .output(KeyRotated)
        .mutation(({ input }) => {
          const { key, record, previous } = keys.rotate(input.id, input.grace_ms);
          return { ...keyView(record), key, previous: keyView(previous, clock.now()) };
        }),
    }),
    clock: t.router({
      show: operator.output(ClockState).query(() => clockService.show()),
      advance: operator
        .input(ClockAdvanceInput)
        .output(ClockState)
        .mutation(({ input }) => clockService.advance(input.ms)),
      set: operator
        .input(ClockSetInput)
        .output(ClockState)
        .mutation(({ input }) => clockService.set(Date.parse(input.to))),
      reset: operator.output(ClockState).mutation(() => clockService.reset()),
    }),
    events: t.router({
      /** Sandbox only: publishes a sample (or the given) event, as if it had happened. */
      trigger: operator
        .input(EventTriggerInput)
        .output(EventOutput)
        .mutation(async ({ input }) => {
          if (daemon.environment !== 'sandbox') {
            throw new ApiError(
              'conflict',
              'Events can only be triggered by hand in the sandbox environment.',
            );
          }
          const workspaceId = workspaces.existingId(input.workspace_id);
          return events.publishAlone(
            workspaceId,
            input.type,
            input.data ?? sampleEventData(input.type, workspaceId, clock.iso()),
          );
        }),
      stream: operator
        .input(EventStreamInput)
        .output(asyncIterableOf(EventOutput))
        .subscription(({ input, signal }) => {
          const filter = input ?? {};
          const matchesType = filter.types?.length ? typeMatcher(filter.types) : () => true;
          return live(
            events,
            'published',
            (event) =>
              (!filter.workspace_id || event.workspace_id === filter.workspace_id) &&
              matchesType(event.type),
            signal,
          );
        }),
    }),
    secrets: t.router({
      set: operator
        .input(SecretSetInput)
        .output(SecretInfo)
        .mutation(({ input }) =>
          deps.secrets.set(workspaces.existingId(input.workspace_id), input.name, input.value),
        ),
      /** Names only: values never leave the daemon. */
      list: operator
        .input(SecretListInput)
        .output(z.array(SecretInfo))
        .query(({ input }) => deps.secrets.list(workspaces.existingId(input?.workspace_id))),
      delete: operator
        .input(SecretDeleteInput)
        .output(SecretDeleted)
        .mutation(({ input }) => {
          try {
            return deps.secrets.delete(workspaces.existingId(input.workspace_id), input.name);
          } catch (error) {
            if (error instanceof SecretNotFoundError)
              throw new ApiError('not_found', error.message);
            throw error;
          }
        }),
    }),
    agents: t.router({
      /** Sandbox stubs: deterministic agent answers for tests (svc agents stub ...). */
      stubs: t.router({
        add: operator
          .input(StubAddInput)
          .output(StubView)
          .mutation(({ input }) => {
            requireSandbox('Agent stubs');
            const { agent_id: agentId, ...stub } = input;
            requireAgent(agentId);
            return stubs.add(agentId, stub);
          }),
        list: operator
          .input(AgentIdInput)
          .output(z.array(StubView))
          .query(({ input }) => {
            requireAgent(input.agent_id);
            return stubs.list(input.agent_id);
          }),
        clear: operator
          .input(AgentIdInput)
          .output(Cleared)
          .mutation(({ input }) => {
            requireAgent(input.agent_id);
            return { cleared: stubs.clear(input.agent_id) };
          }),
      }),
      /** svc agents record: the openai brain writes each request and answer to a cassette. */
      record: operator
        .input(AgentRecordInput)
        .output(RecordingState)
        .mutation(({ input }) => ({
          recording: deps.recorder.recordTo(input.stop ? undefined : input.cassette),
        })),
      recording: operator
        .output(RecordingState)
        .query(() => ({ recording: deps.recorder.recordingTo })),
    }),
    oauth: t.router({
      apps: t.router({
        /** The client secret is in this answer only (stored as SHA-256). */
        create: operator
          .input(OAuthAppCreateInput)
          .output(OAuthAppCreated)
          .mutation(({ input }) => {
            const { app, clientSecret } = deps.oauth.createApp(input);
            return { ...appView(app), client_secret: clientSecret };
          }),
        list: operator
          .input(OAuthAppListInput)
          .output(z.array(OAuthAppView))
          .query(({ input }) => deps.oauth.listApps(input?.workspace_id).map(appView)),
        get: operator
          .input(OAuthAppIdInput)
          .output(OAuthAppView)
          .query(({ input }) => appView(deps.oauth.getApp(input.client_id))),
        /** Also revokes every grant and token the app was given. */
        delete: operator
          .input(OAuthAppIdInput)
          .output(OAuthAppView)
          .mutation(({ input }) => appView(deps.oauth.deleteApp(input.client_id))),
      }),
      grants: t.router({
        list: operator
          .input(OAuthGrantListInput)
          .output(z.array(OAuthGrantView))
          .query(({ input }) =>
            deps.oauth
              .listGrants({
                clientId: input?.client_id,
                workspaceId: input?.workspace_id,
                includeRevoked: input?.include_revoked,
              })
              .map(grantView),
          ),
        revoke: operator
          .input(OAuthGrantIdInput)
          .output(OAuthGrantView)
          .mutation(({ input }) => grantView(deps.oauth.revokeGrant(input.id))),
      }),
    }),
    state: t.router({
      /** svc state export: a consistent snapshot, taken while the daemon serves. */
      export: operator
        .input(StateExportInput)
        .output(SnapshotWritten)
        .mutation(({ input }) => deps.state.export(absolute(input.file), input.force === true)),
      /** svc state import: replaces the store with a snapshot (the daemon pauses, then resumes). */
      import: operator
        .input(StateImportInput)
        .output(ImportAnswer)
        .mutation(({ input }) =>
          storeSwap().importSnapshot({ ...input, file: absolute(input.file) }),
        ),
      /** svc state reset: an empty sandbox, as on a first start. */
      reset: operator.output(ResetAnswer).mutation(() => storeSwap().reset()),
    }),
    fixtures: t.router({
      /** svc fixtures apply (`apply` is a reserved word in tRPC routers): the parsed file and the files it names; dry_run plans only. */
      applyFixture: operator
        .input(FixtureApplyInput)
        .output(FixtureApplyResult)
        .mutation(({ input }) => deps.fixtures.apply(input)),
      /** The fixture file's JSON Schema (svc fixtures schema). */
      schema: operator.output(JsonSchemaDocument).query(() => fixtureJsonSchema()),
    }),
    dashboard: t.router({
      /** A one-time login link for the dashboard (svc dashboard). */
      login: operator.output(DashboardLoginLink).mutation(() => deps.dashboard.login()),
    }),
    /** Sandbox fault rules (svc faults add|list|remove|clear); production refuses them. */
    faults: t.router({
      add: operator
        .input(FaultAddInput)
        .output(FaultView)
        .mutation(({ input }) => {
          const { workspace_id: workspaceId, ...rule } = input;
          return deps.faults.add(workspaces.existingId(workspaceId), rule);
        }),
      list: operator
        .input(FaultListInput)
        .output(z.array(FaultView))
        .query(({ input }) => deps.faults.list(workspaces.existingId(input?.workspace_id))),
      remove: operator
        .input(FaultIdInput)
        .output(FaultView)
        .mutation(({ input }) =>
          deps.faults.remove(workspaces.existingId(input.workspace_id), input.id),
        ),
      clear: operator
        .input(FaultListInput)
        .output(Cleared)
        .mutation(({ input }) => ({
          cleared: deps.faults.clear(workspaces.existingId(input?.workspace_id)),
        })),
    }),
    webhooks: t.router({
      /** svc webhooks replay: stored events sent again as new deliveries. */
      replay: operator
        .input(WebhookReplayInput)
        .output(WebhookReplayResult)
        .mutation(({ input }) => {
          const now = clock.now();
          const to = input.to === undefined ? now : Date.parse(input.to);
          const from =
            input.since_ms !== undefined
              ? now - input.since_ms
              : input.from === undefined
                ? 0
                : Date.parse(input.from);
          if (from > to) {
            throw new ApiError('invalid_parameter', '--from must be before --to.', {
              param: 'from',
            });
          }
          return deliveries.replay(workspaces.existingId(input.workspace_id), input.webhook_id, {
            from,
            to,
            status: input.status,
            eventType: input.event_type,
            dryRun: input.dry_run,
            limit: input.limit,
            includeDeliveries: input.include_deliveries,
          });
        }),
    }),
    deliveries: t.router({
      /** Every delivery attempt as it happens (svc webhooks tail). */
      stream: operator
        .input(DeliveryStreamInput)
        .output(asyncIterableOf(DeliveryActivity))
        .subscription(({ input, signal }) => {
          const filter = input ?? {};
          return live(
            deliveries,
            'attempted',
            (activity) =>
              (!filter.workspace_id || activity.workspace_id === filter.workspace_id) &&
              (!filter.webhook_id || activity.webhook_id === filter.webhook_id),
            signal,
          );
        }),
    }),
  });
}

const AgentIdInput = z.strictObject({ agent_id: z.string() });
const AgentRecordInput = z.union([
  z.strictObject({ cassette: z.string().min(1).max(500), stop: z.literal(false).optional() }),
  z.strictObject({ stop: z.literal(true) }),
]);

function absolute(file: string): string {
  if (!isAbsolute(file)) {
    throw new ApiError(
      'invalid_parameter',
      `Give the snapshot file as an absolute path, not ${file}.`,
      {
        param: 'file',
      },
    );
  }
  return file;
}

export type ControlRouter = ReturnType<typeof createControlRouter>;

/**
 * Yields what a service emits under `name`, as it happens (events.on queues what arrives while
 * the client reads), until the client goes away.
 */
function live<Events extends Record<K, [unknown]>, K extends string>(
  emitter: EventEmitter<Events>,
  name: K,
  accept: (item: Events[K][0]) => boolean,
  signal: AbortSignal | undefined,
): AsyncGenerator<Events[K][0]> {
  // Listening starts here, when the subscription is set up, not at the first read: tRPC tells
  // the client the stream has started before it reads, and what is published in between would
  // otherwise be missed (svc workflows run --wait subscribes, then starts the run).
  const items = on(emitter as EventEmitter, name, { signal });
  return (async function* () {
    if (openLiveStreams >= MAX_LIVE_STREAMS) {
      items.return?.(undefined).catch(() => undefined);
      const cause = new ApiError(
        'rate_limit_exceeded',
        `${MAX_LIVE_STREAMS} live streams are open on the control channel, the most it serves at once. Close one (svc listen, svc events tail, svc workflows run --wait) and try again.`,
      );
      throw new TRPCError({ code: 'TOO_MANY_REQUESTS', message: cause.message, cause });
    }
    openLiveStreams += 1;
    try {
      for await (const [item] of items) {
        if (accept(item as Events[K][0])) yield item as Events[K][0];
      }
    } catch (error) {
      // A client that goes away aborts the signal, which ends events.on with an AbortError.
      if (!signal?.aborted) throw error;
    } finally {
      openLiveStreams -= 1;
    }
  })();
}

/**
 * Live streams (events, deliveries) open at once on the control channel. Its one credential is
 * the control token, so this is the per-credential bound: each stream holds a listener and a
 * queue of what it has not yet sent.
 */
const MAX_LIVE_STREAMS = 32;
let openLiveStreams = 0;

function workspaceView(ws: Workspace, defaultId: string): WorkspaceView {
  return {
    id: ws.id,
    name: ws.name,
    tier: ws.tier,
    default: ws.id === defaultId,
    created_at: toIso(ws.createdAt),
  };
}

function keyView(record: KeyRecord, now?: number): KeyView {
  const expired = record.expires_at !== null && now !== undefined && record.expires_at <= now;
  return {
    id: record.id,
    name: record.name,
    scopes: record.scopes,
    workspace_id: record.workspace_id,
    environment: record.environment,
    hint: `...${record.hint}`,
    status: record.revoked_at !== null ? 'revoked' : expired ? 'expired' : 'active',
    created_at: toIso(record.created_at),
    expires_at: toIso(record.expires_at),
    revoked_at: toIso(record.revoked_at),
    rotated_to: record.rotated_to,
  };
}

function trpcCode(status: number): TRPCError['code'] {
  if (status === 404) return 'NOT_FOUND';
  if (status === 409) return 'CONFLICT';
  if (status === 401) return 'UNAUTHORIZED';
  if (status === 403) return 'FORBIDDEN';
  if (status === 429) return 'TOO_MANY_REQUESTS';
  if (status >= 500) return 'INTERNAL_SERVER_ERROR';
  return 'BAD_REQUEST';
}
