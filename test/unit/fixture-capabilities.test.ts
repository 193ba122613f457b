// The shipped fixtures' agents switch capabilities on by the names of real actions: a misspelt
// one (support-desk had `answer_questions`, issue 41) matches no action, so it silently does
// nothing. Every capability key must be an action the simulated brain can take.
import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { knownAllowedActions } from '../../daemon/agents/brains/classify.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures');

test('every capability an example fixture sets names an action agents take', (t) => {
  const actions = new Set(knownAllowedActions({}));
  const files = readdirSync(FIXTURES).filter((name) => name.endsWith('.yaml'));
  let checked = 0;
  for (const file of files) {
    const fixture = parseYaml(readFileSync(join(FIXTURES, file), 'utf8')) as {
      agents?: Record<string, { capabilities?: Record<string, boolean> }>;
    };
    for (const [name, agent] of Object.entries(fixture.agents ?? {})) {
      for (const capability of Object.keys(agent.capabilities ?? {})) {
        t.true(actions.has(capability), `${file}: agents.${name}.capabilities.${capability}`);
        checked += 1;
      }
    }
  }
  t.true(checked > 0, 'the support desk sets one');
});
