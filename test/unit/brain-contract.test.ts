// The contract every agent brain keeps (daemon/agents/brains/brain.ts), checked with the same
// inputs for each: `simulated`, `openai` against a local OpenAI-compatible server this file
// starts, and `replay` from a cassette this file records with the openai brain. A brain added
// later joins SUBJECTS and inherits every clause: the shape of a result (action, output,
// confidence in [0, 1]), never an action whose capability is false, the action asked for (a
// workflow step's) taken, the same answer for the same question where the brain promises it,
// thinkLocally only for brains that need no network, failures as ApiErrors with their
// documented codes, and (through the execution service) never a blocked action.
import test, { type ExecutionContext } from 'ava';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { tempDir } from '../helpers/temp-dir.js';
import { agentSettingsFromEnv } from '../../daemon/agents/agent-settings.js';
import type { AgentProfile, Brain, BrainInput } from '../../daemon/agents/brains/brain.js';
import { Cassettes } from '../../daemon/agents/brains/cassette.js';
import { OpenAiBrain, type OpenAiSettings } from '../../daemon/agents/brains/openai.js';
import { ReplayBrain } from '../../daemon/agents/brains/replay.js';
import { SimulatedBrain } from '../../daemon/agents/brains/simulated.js';
import { ApiError } from '../../daemon/domain/errors.js';
import { OutboundHttp } from '../../daemon/outbound/http.js';
import { ERROR_CODES, type ErrorCode } from '../../shared/errors.js';

/** One question put to every brain, and what the model server answers to it (openai, replay). */
interface Case {
  name: string;
  agent?: Partial<AgentProfile>;
  input: string;
  context?: Record<string, unknown>;
  passages?: BrainInput['passages'];
  /** The assistant message: an object is sent as its JSON, a string as it is. */
  model: unknown;
}

const CASES: Case[] = [
  {
    name: 'a keyword question',
    input: 'Where is my order A-1?',
    model: { action: 'check_order_status', output: 'It ships today.', confidence: 0.9 },
  },
  {
    name: 'a proposal whose capability is off',
    agent: { capabilities: { issue_refund: false } },
    input: 'Please refund my order',
    model: { action: 'issue_refund', output: 'Refunded.', confidence: 0.95 },
  },
  {
    name: "the type's default switched off",
    agent: { type: 'sales', capabilities: { qualify_lead: false } },
    input: 'Hello there',
    model: { action: 'qualify_lead', output: 'Let me prepare an offer.', confidence: 0.8 },
  },
  {
    name: 'a confidence out of range',
    input: 'Can I get a quote?',
    model: { action: 'qualify_lead', output: 'Sure.', confidence: 1.7 },
  },
  {
    name: 'a plain-text answer',
    agent: { personality: { tone: 'formal', response_length: 'short', empathy_level: null } },
    input: 'What are your opening hours?',
    model: 'We are open from 9 to 5.',
  },
  {
    name: 'knowledge passages and a fenced answer',
    input: 'How long does shipping take?',
    passages: [{ text: 'Orders ship within 2 days.', documentId: 'doc_1', coverage: 0.5 }],
    model:
      '```json\n{"action": "Answer Question!", "output": "Within 2 days.", "confidence": -3}\n```',
  },
  {
    name: 'an empty input of an unknown type',
    agent: { type: 'unknown-type' },
    input: '',
    model: { output: '' },
  },
  {
    name: 'context with ids and times',
    input: 'Cancel my plan',
    context: { run: 'wex_AAAAAAAAAAAAAAAAAAAA', at: '2030-01-01T00:00:00.000Z' },
    model: { action: 'cancel_order', output: 'Cancelled.', confidence: 0.85 },
  },
];

function profile(overrides: Partial<AgentProfile> = {}): AgentProfile {
  return {
    id: 'agt_contract',
    workspace_id: 'ws_contract',
    name: 'Contract',
    type: 'customer-service',
    capabilities: {},
    personality: { tone: null, response_length: null, empathy_level: null },
    brain: null,
    ...overrides,
  };
}

/**
 * The model call's bound where the model answers: only a guard against a hang, far above what a
 * loaded machine takes (5 s was reached at load ~20, and the call failed execution_timeout). The
 * timeout clause itself is checked against a server that never answers, with 300 ms.
 */
const ANSWERS_WITHIN_MS = 60_000;

function inputOf(c: Case, timeoutMs = ANSWERS_WITHIN_MS): BrainInput {
  return {
    agent: profile(c.agent),
    input: c.input,
    context: c.context ?? {},
    passages: c.passages ?? [],
    timeoutMs,
  };
}

/** The same question on another day of another run: other svc ids and ISO times. */
function laterRun(input: BrainInput): BrainInput {
  const context = JSON.stringify(input.context)
    .replace(/wex_[0-9A-Za-z]{20}/g, 'wex_BBBBBBBBBBBBBBBBBBBB')
    .replace(/2030-01-01T00:00:00.000Z/g, '2031-06-15T12:30:00.000Z');
  return { ...input, context: JSON.parse(context) as Record<string, unknown> };
}

function modelSays(fake: FakeOpenAi, c: Case): void {
  if (typeof c.model === 'string') fake.answerText(c.model);
  else fake.answerJson(c.model);
}

/** A failure a brain can meet, and the documented code it answers with. */
interface Failure {
  name: string;
  code: ErrorCode;
  run(): Promise<unknown>;
}

interface Subject {
  brain: Brain;
  /** The README promises the same result for the same agent, input and knowledge. */
  deterministic: boolean;
  /** Makes the brain's world answer this case (the model server, for openai). */
  prepare(c: Case): void;
  failures: Failure[];
}

const CASSETTE = 'contract.json';
const outbound = new OutboundHttp({ environment: 'sandbox', allowPrivateNetwork: false });
let fake: FakeOpenAi;
const SUBJECTS = new Map<string, Subject>();

test.before(async () => {
  fake = await startFakeOpenAi();
  const settings: OpenAiSettings = { baseUrl: fake.baseUrl, model: 'contract-model' };
  const noSecrets = () => undefined;
  const cassettes = new Cassettes(tempDir('svc-contract-cassettes-'));
  const openai = new OpenAiBrain(settings, outbound, noSecrets, cassettes);
  // The cassette the replay brain answers from: each case asked once, for real, and recorded.
  for (const c of CASES) {
    modelSays(fake, c);
    await openai.ask(inputOf(c), CASSETTE);
  }
  // Port 9 (discard) on loopback: nothing listens, the call fails at once.
  const deadOpenai = new OpenAiBrain(
    { baseUrl: 'http://127.0.0.1:9/v1', model: 'contract-model' },
    outbound,
    noSecrets,
  );
  const replay = new ReplayBrain(
    { cassette: CASSETTE, recordMissing: false },
    settings,
    cassettes,
    deadOpenai,
  );
  const question = inputOf(CASES[0]!);
  SUBJECTS.set('simulated', {
    brain: new SimulatedBrain(),
    deterministic: true,
    prepare: () => undefined,
    failures: [],
  });
  SUBJECTS.set('openai', {
    brain: openai,
    deterministic: false,
    prepare: (c) => modelSays(fake, c),
    failures: [
      {
        name: 'the endpoint answers HTTP 500',
        code: 'external_api_error',
        run: () => (fake.answerStatus(500), openai.think(question)),
      },
      {
        name: 'the endpoint answers without content',
        code: 'external_api_error',
        run: () => (fake.answerText(''), openai.think(question)),
      },
      {
        name: 'nothing listens at the endpoint',
        code: 'external_api_error',
        run: () => deadOpenai.think(question),
      },
      {
        name: 'the endpoint does not answer in time',
        code: 'execution_timeout',
        run: () => (fake.hang(), openai.think(inputOf(CASES[0]!, 300))),
      },
    ],
  });
  SUBJECTS.set('replay', {
    brain: replay,
    deterministic: true,
    prepare: () => undefined,
    failures: [
      {
        name: 'a question the cassette lacks',
        code: 'external_api_error',
        run: () => replay.think({ ...question, input: 'A question nobody recorded' }),
      },
      {
        name: 'an agent without a cassette',
        code: 'external_api_error',
        run: () =>
          new ReplayBrain({ recordMissing: false }, settings, cassettes, deadOpenai).think(
            question,
          ),
      },
    ],
  });
});

test.after.always(async () => {
  await Promise.all([fake?.close(), outbound.close()]);
});

/** Each case's answer from the subject, after preparing its world. */
async function answers(subject: Subject) {
  const results = [];
  for (const c of CASES) {
    subject.prepare(c);
    const input = inputOf(c);
    results.push({ c, input, result: await subject.brain.think(input) });
  }
  return results;
}

const clauses: [string, (t: ExecutionContext, subject: Subject) => Promise<void>][] = [
  [
    'every answer is {action, output, confidence}: a snake_case action, a text, 0 <= confidence <= 1',
    async (t, subject) => {
      for (const { c, result } of await answers(subject)) {
        t.deepEqual(Object.keys(result).sort(), ['action', 'confidence', 'output'], c.name);
        t.regex(result.action, /^[a-z0-9_]{1,100}$/, c.name);
        t.is(typeof result.output, 'string', c.name);
        t.true(
          Number.isFinite(result.confidence) && result.confidence >= 0 && result.confidence <= 1,
          `${c.name}: confidence ${result.confidence}`,
        );
      }
    },
  ],
  [
    'never an action whose capability is false',
    async (t, subject) => {
      for (const { c, input, result } of await answers(subject)) {
        t.not(input.agent.capabilities[result.action], false, `${c.name}: ${result.action}`);
      }
    },
  ],
  [
    "an action asked for (a workflow step's config.action) is the answer's action",
    async (t, subject) => {
      for (const c of CASES) {
        subject.prepare(c);
        // The request is the one without it (cassettes recorded before still replay).
        const result = await subject.brain.think({ ...inputOf(c), action: 'open_ticket' });
        t.is(result.action, 'open_ticket', c.name);
        t.is(typeof result.output, 'string', c.name);
      }
    },
  ],
  [
    'the same answer to the same question, whatever the run ids and times (where promised)',
    async (t, subject) => {
      if (!subject.deterministic) {
        // A live model decides (no promise is made): the answer follows the model's.
        const input = inputOf(CASES[0]!);
        fake.answerJson({ action: 'respond', output: 'First answer.', confidence: 0.5 });
        const first = await subject.brain.think(input);
        fake.answerJson({ action: 'respond', output: 'Second answer.', confidence: 0.5 });
        t.notDeepEqual(await subject.brain.think(input), first);
        return;
      }
      for (const { c, input, result } of await answers(subject)) {
        t.deepEqual(await subject.brain.think(input), result, c.name);
        t.deepEqual(await subject.brain.think(laterRun(input)), result, `${c.name}, later run`);
      }
    },
  ],
  [
    'thinkLocally only without the network, and then the very answer of think',
    async (t, subject) => {
      const asked = fake.requests.length;
      const results = await answers(subject);
      const local = subject.brain.thinkLocally?.bind(subject.brain);
      if (!local) {
        t.true(fake.requests.length > asked, 'a brain without thinkLocally asks the network');
        return;
      }
      t.is(fake.requests.length, asked, 'a local brain made no request');
      for (const { c, input, result } of results) {
        if (subject.brain.answersLocally?.(input) === false) continue;
        t.deepEqual(local(input), result, c.name);
      }
    },
  ],
  [
    'fails only with ApiErrors of documented codes',
    async (t, subject) => {
      if (subject.failures.length === 0) {
        // Offline and total: nothing outside the CPU can fail it, not even a huge input.
        const huge = { ...inputOf(CASES[0]!), input: 'refund '.repeat(20_000) };
        t.is((await subject.brain.think(huge)).action, 'issue_refund');
        return;
      }
      for (const failure of subject.failures) {
        const error = await t.throwsAsync(failure.run(), { instanceOf: ApiError }, failure.name);
        if (!(error instanceof ApiError)) continue;
        t.is(error.code, failure.code, failure.name);
        t.is(error.status, ERROR_CODES[error.code].status, failure.name);
        t.true(error.message.length > 10, `${failure.name}: ${error.message}`);
      }
    },
  ],
];

// Serial: the openai brain's answers come from one model server, told what to say per case.
for (const name of ['simulated', 'openai', 'replay']) {
  for (const [clause, check] of clauses) {
    test.serial(`${name}: ${clause}`, (t) => check(t, SUBJECTS.get(name)!));
  }
}

test.serial(
  'every brain: a proposal of a blocked action ends in 403 guardrail_violation, never done',
  async (t) => {
    // The daemon's own cassette folder: its data dir, not one the caller's environment names.
    delete process.env.SVC_CASSETTE_DIR;
    const svc: TestApp = await buildTestApp({
      agentSettings: {
        ...agentSettingsFromEnv({}),
        openai: { baseUrl: fake.baseUrl, model: 'contract-model' },
      },
    });
    t.teardown(() => svc.cleanup());
    const { key } = svc.createKey(['agents:read', 'agents:write', 'agents:execute']);
    const call = async (method: 'GET' | 'POST', url: string, payload?: unknown) => {
      const response = await svc.app.inject({
        method,
        url: `/v1${url}`,
        headers: { authorization: `Bearer ${key}`, 'x-tenant-id': svc.defaultWorkspaceId },
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
      return { status: response.statusCode, body: response.json() };
    };
    fake.answerJson({ action: 'issue_refund', output: 'Refunded.', confidence: 0.9 });
    svc.services.openaiBrain.recordTo('blocked.json');
    for (const brain of [
      { provider: 'simulated' },
      { provider: 'openai' },
      { provider: 'replay', cassette: 'blocked.json' },
    ]) {
      const created = await call('POST', '/agents', {
        // The same name and type for each: the replay brain finds the openai brain's request.
        name: 'Refunds',
        ontology: 'retail-v1',
        type: 'customer-service',
        autonomy_level: 'L3',
        guardrails: { blocked_actions: ['issue_refund'] },
        brain,
      });
      t.is(created.status, 201, JSON.stringify(created.body));
      const agent = created.body.data.id as string;
      await call('POST', '/agents/deploy', { agent_id: agent });
      if (brain.provider === 'replay') svc.services.openaiBrain.recordTo(undefined);
      const executed = await call('POST', `/agents/${agent}/execute`, {
        input: 'Please refund my order',
        wait_for_completion: true,
      });
      t.is(executed.status, 403, `${brain.provider}: ${JSON.stringify(executed.body)}`);
      t.is(executed.body.error.code, 'guardrail_violation', brain.provider);
      const stored = await call(
        'GET',
        `/agents/${agent}/executions/${executed.body.error.execution_id as string}`,
      );
      t.like(
        stored.body.data,
        { status: 'failed', error: { code: 'guardrail_violation' } },
        brain.provider,
      );
    }
  },
);
