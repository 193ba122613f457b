// Every control-channel procedure declares what it answers (`.output()`), so the CLI's types come
// from one schema per answer and the daemon cannot send a shape the CLI does not expect.
import test from 'ava';
import { z } from 'zod';
import { createControlRouter } from '../../daemon/control/router.js';
import { asyncIterableOf, KeyView } from '../../shared/schemas/control-output.js';

interface ProcedureDef {
  type: 'query' | 'mutation' | 'subscription';
  output?: unknown;
}

const procedures = (
  createControlRouter({} as never) as unknown as {
    _def: { procedures: Record<string, { _def: ProcedureDef }> };
  }
)._def.procedures;

test('every procedure of the control channel declares its output', (t) => {
  const paths = Object.keys(procedures);
  t.true(paths.length >= 40, `${paths.length} procedures`);
  const without = paths.filter((path) => procedures[path]!._def.output === undefined);
  t.deepEqual(without, []);
});

test('a subscription checks each item it yields', async (t) => {
  const Item = z.object({ n: z.number() });
  async function* items() {
    yield { n: 1, extra: 'dropped' };
    yield { n: 'two' };
  }
  const parsed = (await asyncIterableOf(Item).parseAsync(items())) as AsyncIterable<unknown>;
  const seen: unknown[] = [];
  const error = await t.throwsAsync(async () => {
    for await (const item of parsed) seen.push(item);
  });
  t.deepEqual(seen, [{ n: 1 }]);
  t.true(error instanceof z.ZodError);
});

test('a subscription output refuses what is not a stream', async (t) => {
  await t.throwsAsync(asyncIterableOf(z.number()).parseAsync([1, 2]));
});

test('an answer is checked against its schema: a key view with an unknown status is refused', (t) => {
  const view = {
    id: 'key_1',
    name: 'ci',
    scopes: ['agents:read'],
    workspace_id: null,
    environment: 'sandbox',
    hint: '...abcd',
    status: 'active',
    created_at: '2026-01-01T00:00:00.000Z',
    expires_at: null,
    revoked_at: null,
    rotated_to: null,
    last_used_at: null,
  };
  t.true(KeyView.safeParse(view).success);
  t.false(KeyView.safeParse({ ...view, status: 'paused' }).success);
});
