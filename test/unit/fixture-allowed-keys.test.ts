// A fixture key the schema does not know is refused with the keys allowed at that place, so the
// author sees that max_attempts belongs under settings.retry_policy.
import test from 'ava';
import { allowedKeys } from '../../daemon/domain/allowed-keys.js';
import type { FixtureDeps } from '../../daemon/fixtures/deps.js';
import { checkFixture } from '../../daemon/fixtures/entries.js';
import { FixtureFile, workflowForm } from '../../shared/schemas/fixtures.js';

/** The shape is checked before anything is looked up: no deps are reached. */
const NO_DEPS = {} as FixtureDeps;

async function refusal(fixture: unknown): Promise<string> {
  const error = await Promise.resolve()
    .then(() => checkFixture({ fixture } as Parameters<typeof checkFixture>[0], NO_DEPS))
    .then(
      () => undefined,
      (caught: unknown) => caught as Error,
    );
  if (!error) throw new Error('the fixture was accepted');
  return error.message;
}

test('settings.max_attempts: refused, naming the keys settings takes', async (t) => {
  const message = await refusal({
    version: 1,
    workflows: {
      w: {
        name: 'W',
        settings: { max_attempts: 3 },
        steps: [{ id: 's', name: 'S', type: 'wait', config: { duration_seconds: 1 } }],
      },
    },
  });
  t.regex(
    message,
    /^workflows\.w\.settings: Unrecognized key: "max_attempts"\. Allowed here: .*retry_policy/,
  );
  t.regex(message, /timeout_seconds/);
});

test('an unknown key of an entry names the fields of that kind of entry', async (t) => {
  const message = await refusal({
    version: 1,
    workspaces: { acme: { name: 'Acme', tier: 'free', colour: 'red' } },
  });
  t.regex(message, /^workspaces\.acme: Unrecognized key: "colour"\. Allowed here: name, tier\.$/);
});

test('the keys at a path, through records, arrays, optionals and unions', (t) => {
  t.true(allowedKeys(FixtureFile, []).includes('workflows'));
  t.deepEqual(allowedKeys(FixtureFile, ['workspaces', 'any']), ['name', 'tier']);
  const inline = { name: 'W', steps: [] };
  t.true(allowedKeys(workflowForm(inline), ['settings']).includes('retry_policy'));
  t.true(allowedKeys(workflowForm(inline), ['steps', '0']).includes('next_step_id'));
  t.deepEqual(allowedKeys(FixtureFile, ['version']), []);
  t.deepEqual(allowedKeys(FixtureFile, ['no_such_kind']), []);
});
