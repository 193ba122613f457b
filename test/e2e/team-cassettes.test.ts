// Team mode (issue 54): cassettes are sandbox-wide. Two daemons serve one sandbox of a
// throwaway PostgreSQL; an agent on the replay brain gives the same answer whichever of them
// serves it. A cassette recorded through daemon A (svc agents record) replays through daemon B
// with the model server stopped; a cassette file loaded through B (svc agents cassette load)
// answers on A; a file of A's cassette folder is taken into the store the first time A uses
// it, then B answers from it too; a malformed stored cassette fails the execution with one
// sentence naming the cassette and the entry, and a good copy loaded mends it. svc status says
// where cassettes are kept, and a snapshot of the sandbox (svc state export) carries them.
import test from 'ava';
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertExit, type TestDaemon } from '../helpers/daemon.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { psql, throwawayPostgres, twoDaemonsOn } from '../helpers/postgres.js';
import { daemonsStoppedAfterFile } from '../helpers/team-daemons.js';
import { tempDir } from '../helpers/temp-dir.js';

const SANDBOX = 'team_cassettes';
const started = daemonsStoppedAfterFile();
let url: string;
let fake: FakeOpenAi;
let a: TestDaemon;
let b: TestDaemon;
/** A REST call on one daemon, with that daemon's operator key. */
type Call = (
  method: string,
  path: string,
  body?: unknown,
) => Promise<{ status: number; body: any }>;
let onA: Call;
let onB: Call;

async function caller(d: TestDaemon): Promise<Call> {
  const { key, workspaceId } = await d.operator();
  return async (method, path, body) => {
    const answer = await d.callJson(method, `/v1${path}`, body, { key, tenant: workspaceId });
    return { status: answer.status, body: answer.body };
  };
}

test.before(async () => {
  fake = await startFakeOpenAi();
  ({ url } = await throwawayPostgres());
  [a, b] = await twoDaemonsOn(url, SANDBOX, started, {
    SVC_OPENAI_BASE_URL: fake.baseUrl,
    SVC_OPENAI_MODEL: 'rec-model',
  });
  [onA, onB] = [await caller(a), await caller(b)];
});

test.after.always(async () => {
  await fake?.close();
});

/** A new active agent with this brain (created through A: it is the sandbox's). */
async function agentWith(brain: Record<string, unknown>): Promise<string> {
  const created = await onA('POST', '/agents', {
    name: 'Support',
    ontology: 'retail-v1',
    type: 'customer-service',
    autonomy_level: 'L3',
    brain,
  });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  const agent = created.body.data.id as string;
  await onA('POST', '/agents/deploy', { agent_id: agent });
  return agent;
}

const execute = (call: Call, agent: string, input: string) =>
  call('POST', `/agents/${agent}/execute`, { input, wait_for_completion: true });

test.serial('a cassette recorded through daemon A replays through daemon B', async (t) => {
  assertExit(t, await a.cli(['agents', 'record', '--cassette', 'support.json']), 0);
  const agent = await agentWith({ provider: 'openai' });
  const questions = ['Where is my order?', 'Please cancel my plan'];
  const recorded = [];
  for (const [i, question] of questions.entries()) {
    fake.answerJson({ action: `answer_${i}`, output: `Recorded answer ${i}`, confidence: 0.9 });
    const answer = await execute(onA, agent, question);
    t.is(answer.status, 200, JSON.stringify(answer.body));
    recorded.push(answer.body.data.result);
  }
  assertExit(t, await a.cli(['agents', 'record', '--stop']), 0);
  t.false(existsSync(join(a.dataDir, 'cassettes', 'support.json')), 'not a file of A');
  t.is(psql(url, `SELECT count(*) FROM ${SANDBOX}.cassettes WHERE name = 'support.json'`), '1\n');

  const calls = fake.requests.length;
  const patched = await onB('PATCH', `/agents/${agent}`, {
    brain: { provider: 'replay', cassette: 'support.json' },
  });
  t.is(patched.status, 200, JSON.stringify(patched.body));
  for (const call of [onB, onA]) {
    for (const [i, question] of questions.entries()) {
      const answer = await execute(call, agent, question);
      t.is(answer.status, 200, JSON.stringify(answer.body));
      t.deepEqual(answer.body.data.result, recorded[i]);
    }
  }
  t.is(fake.requests.length, calls, 'answered from the cassette, no network call');

  const status = await b.cli(['status', '--json']);
  assertExit(t, status, 0);
  t.like(status.json().brain, { cassettes_in: 'store' });
  const human = await b.cli(['status']);
  t.regex(
    human.stdout,
    /^brain {7}simulated, cassettes in the sandbox's store \(files of .* taken in when first used\)$/m,
  );
});

test.serial('a cassette file loaded through B answers on A; a file of A is taken in', async (t) => {
  fake.answerJson({ action: 'answer_loaded', output: 'Loaded answer', confidence: 0.8 });
  // Recorded on a machine of its own (a colleague's: a daemon alone, the cassette a file).
  const recording = await agentWith({ provider: 'openai' });
  assertExit(t, await a.cli(['agents', 'record', '--cassette', 'colleague.json']), 0);
  const live = await execute(onA, recording, 'Do you ship abroad?');
  assertExit(t, await a.cli(['agents', 'record', '--stop']), 0);
  const stored = psql(url, `SELECT data FROM ${SANDBOX}.cassettes WHERE name = 'colleague.json'`);
  const file = join(tempDir('svc-given-'), 'given.json');
  writeFileSync(file, stored);

  const loaded = await b.cli([
    'agents',
    'cassette',
    'load',
    file,
    '--name',
    'team/given.json',
    '--json',
  ]);
  assertExit(t, loaded, 0);
  t.deepEqual(loaded.json(), {
    cassette: 'team/given.json',
    interactions: 1,
    cassettes_in: 'store',
  });
  const replaying = await agentWith({ provider: 'replay', cassette: 'team/given.json' });
  const onAnswer = await execute(onA, replaying, 'Do you ship abroad?');
  t.is(onAnswer.status, 200, JSON.stringify(onAnswer.body));
  t.deepEqual(onAnswer.body.data.result, live.body.data.result);

  // A file put in A's cassette folder: taken into the store when A first uses it.
  mkdirSync(join(a.dataDir, 'cassettes'), { recursive: true });
  writeFileSync(join(a.dataDir, 'cassettes', 'dropped.json'), stored);
  const dropped = await agentWith({ provider: 'replay', cassette: 'dropped.json' });
  const first = await execute(onA, dropped, 'Do you ship abroad?');
  t.is(first.status, 200, JSON.stringify(first.body));
  const onB2 = await execute(onB, dropped, 'Do you ship abroad?');
  t.is(onB2.status, 200, JSON.stringify(onB2.body));
  t.deepEqual(onB2.body.data.result, live.body.data.result);
});

test.serial(
  'a malformed stored cassette fails with one sentence; a good copy loaded mends it',
  async (t) => {
    psql(
      url,
      `INSERT INTO ${SANDBOX}.cassettes (name, data, updated_at) VALUES ('broken.json', '{"interactions":[{"key":"k","request":{"model":"m","messages":[]},"response":null}]}', 0)`,
    );
    const agent = await agentWith({ provider: 'replay', cassette: 'broken.json' });
    const failed = await execute(onB, agent, 'Where is my order?');
    t.is(failed.status, 502, JSON.stringify(failed.body));
    t.is(failed.body.error.code, 'external_api_error');
    t.regex(
      failed.body.error.message,
      /^Cassette 'broken\.json' in the sandbox's store is malformed at interactions\[0\]\.response: [^;]+; load a good copy of the file with svc agents cassette load FILE --name broken\.json, or record it again with svc agents record\.$/,
    );

    // A bad file is refused (400) and replaces nothing; a good one mends the cassette for both.
    const badFile = join(tempDir('svc-bad-'), 'bad.json');
    writeFileSync(badFile, '{"interactions":"x"}');
    const refused = await a.cli(['agents', 'cassette', 'load', badFile, '--name', 'broken.json']);
    assertExit(t, refused, 1);
    t.regex(refused.stderr, /Cassette 'broken\.json' is malformed at interactions:/);
    const goodFile = join(tempDir('svc-good-'), 'good.json');
    writeFileSync(
      goodFile,
      psql(url, `SELECT data FROM ${SANDBOX}.cassettes WHERE name = 'support.json'`),
    );
    const mended = await a.cli(['agents', 'cassette', 'load', goodFile, '--name', 'broken.json']);
    assertExit(t, mended, 0);
    t.regex(
      mended.stdout,
      /^Loaded 2 interactions as cassette broken\.json, in the sandbox's store/,
    );
    const answer = await execute(onB, agent, 'Where is my order?');
    t.is(answer.status, 200, JSON.stringify(answer.body));
    t.is(answer.body.data.result.output, 'Recorded answer 0');
  },
);

test.serial('a snapshot of the team sandbox carries its cassettes', async (t) => {
  const file = join(tempDir('svc-team-snapshot-'), 'team.svc');
  assertExit(t, await b.cli(['state', 'export', file]), 0);
  const snapshot = new Database(file, { readonly: true });
  try {
    const names = snapshot
      .prepare('SELECT name FROM cassettes ORDER BY name')
      .pluck()
      .all() as string[];
    t.deepEqual(names, [
      'broken.json',
      'colleague.json',
      'dropped.json',
      'support.json',
      'team/given.json',
    ]);
    const support = snapshot
      .prepare("SELECT data FROM cassettes WHERE name = 'support.json'")
      .pluck()
      .get() as string;
    t.is(JSON.parse(support).interactions.length, 2);
  } finally {
    snapshot.close();
  }
});

test.serial(
  'an answer recorded through A after B loaded the cassette is replayed by B',
  async (t) => {
    const replaying = await agentWith({ provider: 'replay', cassette: 'support.json' });
    const known = await execute(onB, replaying, 'Where is my order?');
    t.is(known.status, 200, JSON.stringify(known.body));
    // B holds support.json in memory now. A records one more question into it.
    const recording = await agentWith({ provider: 'openai' });
    assertExit(t, await a.cli(['agents', 'record', '--cassette', 'support.json']), 0);
    fake.answerJson({ action: 'answer_late', output: 'Recorded later', confidence: 0.9 });
    const live = await execute(onA, recording, 'Can I change my address?');
    t.is(live.status, 200, JSON.stringify(live.body));
    assertExit(t, await a.cli(['agents', 'record', '--stop']), 0);
    // Whether or not B has heard of it yet, it looks in the stored cassette before failing.
    const late = await execute(onB, replaying, 'Can I change my address?');
    t.is(late.status, 200, JSON.stringify(late.body));
    t.deepEqual(late.body.data.result, live.body.data.result);
    t.is(
      JSON.parse(psql(url, `SELECT data FROM ${SANDBOX}.cassettes WHERE name = 'support.json'`))
        .interactions.length,
      3,
    );
  },
);
