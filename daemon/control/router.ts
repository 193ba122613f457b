// The control channel: what the CLI manages that the REST API does not (workspaces, keys,
// the clock, the daemon itself) and live streams. Loopback only, control-token auth.
import { z } from 'zod';
import { isAbsolute } from 'node:path';
import {
  ClockAdvanceInput,
  ClockSetInput,
  DashboardLoginInput,
  DeliveryStreamInput,
  EventStreamInput,
  EventTriggerInput,
  HookSignInput,
  KeyCreateInput,
  KeyIdInput,
  KeyListInput,
  KeyRotateInput,
  StateExportInput,
  StateImportInput,
  WorkspaceCreateInput,
} from '../../shared/schemas/control.js';
import { ApiError } from '../domain/errors.js';
import { publishByHand } from '../events/by-hand.js';
import { keyView } from '../keys/key.view.js';
import { workspaceView } from '../workspaces/workspace.view.js';
import { StubAddInput } from '../../shared/schemas/agents.js';
import { typeMatcher } from '../../shared/event-type-patterns.js';
import {
  SecretDeleteInput,
  SecretListInput,
  SecretSetInput,
} from '../../shared/schemas/workflows.js';
import { SecretNotFoundError } from '../secrets/secret.service.js';
import type { ControlDeps } from './deps.js';
import { operator, t } from './procedure.js';
import { waitProcedures } from './wait.procedures.js';
import { approvalProcedures } from './approvals.procedures.js';

export { controlContextFactory, isAuthorized, type ControlContext } from './procedure.js';
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
import { replayFilter } from '../webhooks/deliveries/replay.js';
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
  HookSignature,
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
  SandboxStatus,
  SecretDeleted,
  SecretInfo,
  ShutdownAnswer,
  SnapshotWritten,
  StubView,
  WebhookReplayResult,
  WorkspaceView,
} from '../../shared/schemas/control-output.js';
import { live } from './live.js';
import { sandboxStatus } from './sandbox-status.js';

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
      /** svc status: the daemon, clock, brain and counts of what is under way. */
      overview: operator.output(SandboxStatus).query(() => sandboxStatus(deps)),
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
        .mutation(({ input }) => clockService.set(Date.parse(input.to), input.frozen)),
      reset: operator.output(ClockState).mutation(() => clockService.reset()),
      /** Only advance and set move a frozen clock. */
      freeze: operator.output(ClockState).mutation(() => clockService.freeze()),
      resume: operator.output(ClockState).mutation(() => clockService.resume()),
    }),
    ...waitProcedures(deps),
    ...approvalProcedures(deps),
    triggers: t.router({
      /** svc workflows trigger: signs a body for a workflow's hook; the secret stays here. */
      signHook: operator
        .input(HookSignInput)
        .output(HookSignature)
        .mutation(({ input }) =>
          deps.triggers.signHook(
            workspaces.existingId(input.workspace_id),
            input.workflow_id,
            input.body,
          ),
        ),
    }),
    events: t.router({
      /** Sandbox only: publishes a sample (or the given) event, as if it had happened. */
      trigger: operator
        .input(EventTriggerInput)
        .output(EventOutput)
        .mutation(({ input }) =>
          publishByHand(events, {
            environment: daemon.environment,
            workspaceId: workspaces.existingId(input.workspace_id),
            type: input.type,
            data: input.data,
            nowIso: clock.iso(),
          }),
        ),
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
      /** A one-time login link for the dashboard (svc dashboard, svc open <id>). */
      login: operator
        .input(DashboardLoginInput)
        .output(DashboardLoginLink)
        .mutation(({ input }) => deps.dashboard.login(input)),
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
        .mutation(({ input }) =>
          deliveries.replay(
            workspaces.existingId(input.workspace_id),
            input.webhook_id,
            replayFilter(input, clock.now()),
          ),
        ),
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
