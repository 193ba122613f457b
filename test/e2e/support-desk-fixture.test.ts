// The support-desk fixture as shipped (issue 41): it applies, its support agent has the
// capability it means (answer_question, once misspelt answer_questions, which matched no
// action), and that agent answers the README's question from the FAQ the fixture uploads.
import test from 'ava';
import { join } from 'node:path';
import { control } from '../helpers/api.js';
import { ROOT } from '../helpers/daemon.js';
import { sharedDaemon } from '../helpers/setup.js';

const d = sharedDaemon(test);
const SHIPPING =
  'Standard shipping takes 2 to 4 business days. Express shipping arrives the next business day when ordered before 2 pm.';

test("the support desk's agent answers 'When do orders ship?' from its FAQ", async (t) => {
  const applied = await d.cli([
    'fixtures',
    'apply',
    join(ROOT, 'fixtures', 'support-desk.yaml'),
    '--json',
  ]);
  t.is(applied.code, 0, applied.stderr);
  const { workspaces, agents } = applied.json().ids;
  const svc = (...args: string[]) => d.cli([...args, '--workspace', workspaces.acme, '--json']);

  const agent = await svc('agents', 'get', agents.support);
  t.is(agent.code, 0, agent.stderr);
  t.deepEqual(agent.json().capabilities, { answer_question: true });

  const answer = await svc(
    'agents',
    'execute',
    agents.support,
    '--input',
    'When do orders ship?',
    '--wait',
  );
  t.is(answer.code, 0, answer.stderr);
  t.like(answer.json(), {
    status: 'completed',
    result: { action: 'answer_question', output: SHIPPING },
  });
});

test('the triage workflow completes when the printed hint skips its hour-long wait', async (t) => {
  const applied = await d.cli([
    'fixtures',
    'apply',
    join(ROOT, 'fixtures', 'support-desk.yaml'),
    '--json',
  ]);
  t.is(applied.code, 0, applied.stderr);
  const { workspaces, workflows } = applied.json().ids;
  const svc = (...args: string[]) => d.cli([...args, '--workspace', workspaces.acme]);
  // The clock and the run over the control channel and REST, as `svc clock freeze` and `svc
  // workflows run` do (tested in cli-operator and workflows-cli): the subjects are the fixture
  // and the printed hint.
  await control(d, 'clock.freeze', undefined, 'mutation');
  const { key } = await d.operator();
  const started = await d.callJson(
    'POST',
    `/v1/workflows/${workflows.triage}/execute`,
    { input: { question: 'When do orders ship?' } },
    { key, tenant: workspaces.acme },
  );
  t.is(started.status, 202, started.text);
  const runId = started.body.data.execution_id as string;
  const parked = await svc('workflows', 'wait', runId, '--status', 'completed', '--timeout', '1m');
  // The run waits for the clock: the wait says so at once, with the command that moves it.
  const hint = /svc clock advance (\w+)/.exec(parked.stderr + parked.stdout);
  t.truthy(hint, parked.stderr + parked.stdout);
  t.is((await d.cli(['clock', 'advance', hint![1]!])).code, 0);
  const done = await svc('workflows', 'wait', runId, '--status', 'completed', '--json');
  t.is(done.code, 0, done.stderr);
  t.is(done.json<{ status: string }>().status, 'completed');
  await control(d, 'clock.reset', undefined, 'mutation');
});
