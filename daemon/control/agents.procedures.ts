// svc agents stub|record: sandbox stubs (deterministic agent answers for tests) and the openai
// brain's cassette recording.
import { z } from 'zod';
import { StubAddInput } from '../../shared/schemas/agents.js';
import {
  CassetteLoaded,
  Cleared,
  RecordingState,
  StubView,
} from '../../shared/schemas/control-output.js';
import { ApiError } from '../domain/errors.js';
import type { ControlDeps } from './deps.js';
import { operator, t } from './procedure.js';

const AgentIdInput = z.strictObject({ agent_id: z.string() });
const AgentRecordInput = z.union([
  z.strictObject({ cassette: z.string().min(1).max(500), stop: z.literal(false).optional() }),
  z.strictObject({ stop: z.literal(true) }),
]);

/**
 * A cassette file's text under a name: bounded here by characters (each at least a byte), by
 * bytes (16 MiB) and as a document when it is read (agents/brains/cassette-format.ts).
 */
const CassetteLoadInput = z.strictObject({
  name: z.string().min(1).max(500),
  text: z.string().max(16 * 1024 * 1024),
});

export function agentProcedures({ agents, stubs, daemon, recorder, cassettes }: ControlDeps) {
  const requireSandbox = (what: string) => {
    if (daemon.environment !== 'sandbox') {
      throw new ApiError('conflict', `${what} exist only in the sandbox environment.`);
    }
  };
  const requireAgent = (agentId: string) => {
    if (!agents.find(agentId))
      throw new ApiError('agent_not_found', `No agent ${agentId}. List them with: svc agents list`);
  };
  return {
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
          recording: recorder.recordTo(input.stop ? undefined : input.cassette),
        })),
      recording: operator.output(RecordingState).query(() => ({ recording: recorder.recordingTo })),
      /**
       * svc agents cassette load: a cassette file (recorded elsewhere, given by a colleague) as
       * the cassette `name`, replacing it: into the folder, or the sandbox's store (team mode).
       */
      cassettes: t.router({
        load: operator
          .input(CassetteLoadInput)
          .output(CassetteLoaded)
          .mutation(async ({ input }) => ({
            cassette: input.name,
            ...(await cassettes.replace(input.name, input.text)),
            cassettes_in: cassettes.place,
          })),
      }),
    }),
  };
}
