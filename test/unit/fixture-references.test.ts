// Fixture references: found at any depth with their field, entries ordered after what they
// refer to, unknown entries and cycles named, values substituted.
import test from 'ava';
import {
  FixtureError,
  findReferences,
  orderEntries,
  substitute,
  type EntryKey,
} from '../../daemon/fixtures/references.js';

test('references are found with the field they sit in', (t) => {
  const refs = findReferences(
    { workspace: '${workspaces.acme.id}', steps: [{ agent_id: 'x ${agents.a.id} y' }], n: 3 },
    'workflows.w',
  );
  t.deepEqual(
    refs.map((ref) => [ref.kind, ref.name, ref.field, ref.at]),
    [
      ['workspaces', 'acme', 'id', 'workflows.w.workspace'],
      ['agents', 'a', 'id', 'workflows.w.steps[0].agent_id'],
    ],
  );
  t.deepEqual(findReferences({ literal: 'cost $${not.a.ref}' }, 'x'), []);
});

test('a malformed reference or an unknown field is an error naming the field', (t) => {
  t.throws(() => findReferences({ f: '${agents.a}' }, 'agents.b'), {
    instanceOf: FixtureError,
    message: /^agents\.b\.f: /,
  });
  t.throws(() => findReferences({ f: '${agents.a.secret}' }, 'keys.k'), {
    message: /agents have id, not "secret"/,
  });
  t.throws(() => findReferences({ f: '${robots.a.id}' }, 'keys.k'), { message: /no section/ });
});

const entries: EntryKey[] = [
  { kind: 'workflows', name: 'w' },
  { kind: 'agents', name: 'a' },
  { kind: 'workspaces', name: 'ws' },
];

test('entries come after what they refer to', (t) => {
  const deps: Record<string, unknown> = {
    'workflows.w': { agent: '${agents.a.id}' },
    'agents.a': { workspace: '${workspaces.ws.id}' },
    'workspaces.ws': {},
  };
  const order = orderEntries(entries, (e) =>
    findReferences(deps[`${e.kind}.${e.name}`], `${e.kind}.${e.name}`),
  );
  t.deepEqual(
    order.map((e) => e.name),
    ['ws', 'a', 'w'],
  );
});

test('an unknown entry and a cycle are errors naming the entry and field', (t) => {
  t.throws(
    () =>
      orderEntries(entries, (e) =>
        findReferences(
          e.name === 'a' ? { workspace: '${workspaces.nope.id}' } : {},
          `${e.kind}.${e.name}`,
        ),
      ),
    { message: /^agents\.a\.workspace: .*no workspaces\.nope \(its workspaces: ws\)/ },
  );
  const cyclic: Record<string, unknown> = {
    'workflows.w': { agent: '${agents.a.id}' },
    'agents.a': { description: '${workflows.w.id}' },
  };
  t.throws(
    () =>
      orderEntries(entries, (e) =>
        findReferences(cyclic[`${e.kind}.${e.name}`] ?? {}, `${e.kind}.${e.name}`),
      ),
    {
      message:
        /^workflows\.w\.agent: the references form a cycle \(workflows\.w -> agents\.a -> workflows\.w\)/,
    },
  );
});

test('substitution keeps text around a reference and turns $${ into ${', (t) => {
  const ids: Record<string, string> = { 'agents.a.id': 'agt_1' };
  t.deepEqual(
    substitute(
      { a: '${agents.a.id}', b: ['see ${agents.a.id}!'], c: '$${x}', d: 4 },
      (ref) => ids[`${ref.kind}.${ref.name}.${ref.field}`]!,
    ),
    { a: 'agt_1', b: ['see agt_1!'], c: '${x}', d: 4 },
  );
});
