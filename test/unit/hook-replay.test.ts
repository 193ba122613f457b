// A signed webhook-trigger request starts one run only (issue 38): the trigger service on a real
// SQLite file, with the engine replaced by a recorder of start() calls and the real time a
// signature is checked against held still, so that the tolerance boundary can be named exactly.
import test, { type ExecutionContext } from 'ava';
import { join } from 'node:path';
import { ApiError } from '../../daemon/domain/errors.js';
import { SecretBox } from '../../daemon/platform/secret-box.js';
import { openDatabase } from '../../daemon/store/database.js';
import type { StoreKind } from '../../daemon/store/db.js';
import { STORE_KINDS, storeOpener } from '../helpers/postgres.js';
import { OffsetClock, toIso, type Clock } from '../../daemon/time/clock.js';
import { TimerRepository } from '../../daemon/time/timer.repository.js';
import { TimerService } from '../../daemon/time/timer.service.js';
import { TriggerRepository } from '../../daemon/triggers/trigger.repository.js';
import { TriggerService } from '../../daemon/triggers/trigger.service.js';
import { computeSignature, signatureHeader } from '../../shared/signature.js';
import { tempDir } from '../helpers/temp-dir.js';

const WS = 'ws_replay';
const SECRET = 'whsec_replay_secret_1';
const BODY = '{"order":1}';
/** Real time the signatures are checked against, in whole seconds: 2030-01-01T00:00:00Z. */
const T0 = 1_893_456_000;

class StillClock implements Clock {
  constructor(public ms: number) {}
  now(): number {
    return this.ms;
  }
  iso(): string {
    return toIso(this.ms);
  }
}

async function setUp(t: ExecutionContext, kind: StoreKind, options: { failStarts?: number } = {}) {
  const dir = tempDir();
  const db = (await storeOpener(kind))();
  const sandboxClock = new OffsetClock();
  const realClock = new StillClock(T0 * 1000);
  const timers = new TimerService(new TimerRepository(db), sandboxClock, { error: () => {} });
  const started: string[] = [];
  let failStarts = options.failStarts ?? 0;
  const triggers = new TriggerService({
    db,
    repo: new TriggerRepository(db),
    runs: {
      start: (_ws, workflowId) => {
        if (failStarts > 0) {
          failStarts -= 1;
          throw new Error('the store is full');
        }
        started.push(workflowId);
        return { execution_id: `wex_${started.length}` };
      },
    },
    timers,
    clock: sandboxClock,
    commits: { run: async (work) => db.transaction(work)() },
    box: SecretBox.fromKeyFile(join(dir, 'secret.key')),
    signatureClock: realClock,
  });
  t.teardown(async () => {
    await timers.stop();
    db.close();
  });
  const workflow = (id: string, path: string, secret?: string) =>
    db.transaction(() =>
      triggers.onWrite({
        workspaceId: WS,
        before: null,
        after: {
          id,
          status: 'active',
          trigger: { type: 'webhook', config: secret ? { path, secret } : { path } },
        },
      }),
    )();
  const hook = (headers: Record<string, string>, path = 'orders', body = BODY) =>
    triggers.receiveHook({
      workspaceId: WS,
      path,
      body: JSON.parse(body),
      rawBody: body,
      headers,
    });
  const signed = (t = T0, body = BODY) => ({ 'x-svc-signature': signatureHeader(SECRET, body, t) });
  const rows = () =>
    (db.prepare('SELECT COUNT(*) AS n FROM hook_signatures').get() as { n: number }).n;
  return { db, triggers, started, realClock, sandboxClock, workflow, hook, signed, rows };
}

async function refusal(attempt: () => unknown): Promise<ApiError> {
  try {
    await attempt();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

for (const kind of STORE_KINDS) {
  test(`${kind}: the same signed bytes five times start one run; the copies are 409 webhook_replayed`, async (t) => {
    const { workflow, hook, signed, started } = await setUp(t, kind);
    workflow('wfl_1', 'orders', SECRET);
    const first = await hook(signed()).start();
    t.is(first.execution_id, 'wex_1');
    for (let copy = 0; copy < 4; copy += 1) {
      const refused = await refusal(() => hook(signed()).start());
      t.is(refused.code, 'webhook_replayed');
      t.is(refused.status, 409);
      t.is(refused.param, 'X-Svc-Signature');
      t.deepEqual(refused.extras, { execution_id: 'wex_1' });
      t.regex(refused.message, /already accepted at 2.*started run wex_1.*sign the request anew/);
    }
    t.deepEqual(started, ['wfl_1']);
  });

  test(`${kind}: a copy with the header written differently is the same request`, async (t) => {
    const { workflow, hook, signed, started } = await setUp(t, kind);
    workflow('wfl_1', 'orders', SECRET);
    await hook(signed()).start();
    const v1 = computeSignature(SECRET, T0, BODY);
    for (const header of [
      `t=${T0},v1=${v1.toUpperCase()}`,
      ` t=${T0} , v1=${v1} `,
      `t=${T0},v1=${'0'.repeat(64)},v1=${v1}`,
    ]) {
      const refused = await refusal(() => hook({ 'x-svc-signature': header }).start());
      t.is(refused.code, 'webhook_replayed', header);
    }
    t.is(started.length, 1);
  });

  test(`${kind}: two copies sent at once: the one committed second starts nothing`, async (t) => {
    const { workflow, hook, signed, started, rows } = await setUp(t, kind);
    workflow('wfl_1', 'orders', SECRET);
    // Both pass the early check before either is stored; the run's transaction decides.
    const one = hook(signed());
    const two = hook(signed());
    const results = await Promise.allSettled([one.start(), two.start()]);
    t.is(results[0].status, 'fulfilled');
    t.is(results[1].status, 'rejected');
    t.is(((results[1] as PromiseRejectedResult).reason as ApiError).code, 'webhook_replayed');
    t.deepEqual(started, ['wfl_1']);
    t.is(rows(), 1);
  });

  test(`${kind}: a new timestamp, another body or another workspace hook is another request`, async (t) => {
    const { workflow, hook, signed, started } = await setUp(t, kind);
    workflow('wfl_1', 'orders', SECRET);
    workflow('wfl_2', 'refunds', 'whsec_other_secret_2');
    await hook(signed()).start();
    await hook(signed(T0 - 1)).start();
    await hook(signed(T0, '{"order":2}'), 'orders', '{"order":2}').start();
    // The same bytes signed with the other hook's secret are another signature.
    await hook(
      { 'x-svc-signature': signatureHeader('whsec_other_secret_2', BODY, T0) },
      'refunds',
    ).start();
    t.deepEqual(started, ['wfl_1', 'wfl_1', 'wfl_1', 'wfl_2']);
  });

  test(`${kind}: a start that fails records nothing: the sender may send the same request again`, async (t) => {
    const { workflow, hook, signed, started, rows } = await setUp(t, kind, { failStarts: 1 });
    workflow('wfl_1', 'orders', SECRET);
    await t.throwsAsync(() => hook(signed()).start(), { message: 'the store is full' });
    t.is(rows(), 0);
    t.is((await hook(signed()).start()).execution_id, 'wex_1');
    t.deepEqual(started, ['wfl_1']);
  });

  test(`${kind}: an unsigned hook is unaffected: the same bytes start a run each time`, async (t) => {
    const { workflow, hook, started, rows } = await setUp(t, kind);
    workflow('wfl_1', 'orders');
    for (let copy = 0; copy < 3; copy += 1) await hook({}).start();
    t.is(started.length, 3);
    t.is(rows(), 0);
  });

  test(`${kind}: the purge forgets a signature exactly when it stops verifying, on real time`, async (t) => {
    const { workflow, hook, signed, triggers, realClock, sandboxClock, rows } = await setUp(
      t,
      kind,
    );
    workflow('wfl_1', 'orders', SECRET);
    await hook(signed()).start();
    // Moving the sandbox clock a day changes nothing: t is compared with real time.
    sandboxClock.setOffset(86_400_000);
    t.is(triggers.purgeAcceptedSignatures(), 0);
    t.is((await refusal(() => hook(signed()).start())).code, 'webhook_replayed');
    // The last real millisecond at which t still verifies (300 s tolerance, whole seconds).
    realClock.ms = (T0 + 301) * 1000 - 1;
    t.is(triggers.purgeAcceptedSignatures(), 0);
    t.is(rows(), 1);
    t.is((await refusal(() => hook(signed()).start())).code, 'webhook_replayed');
    // One millisecond later the signature no longer verifies, and the row goes.
    realClock.ms += 1;
    t.is(triggers.purgeAcceptedSignatures(), 1);
    t.is(rows(), 0);
    const late = await refusal(() => hook(signed()).start());
    t.is(late.code, 'unauthorized');
    t.deepEqual(late.extras, { reason: 'timestamp_out_of_tolerance' });
  });
}

test('the purge reads through the expiry index, not the whole table', (t) => {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  // The statement the repository prepares, as it prepares it.
  const seen: string[] = [];
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    seen.push(sql);
    return prepare(sql);
  }) as typeof db.prepare;
  new TriggerRepository(db);
  db.prepare = prepare;
  const purge = seen.find((sql) => /^DELETE FROM hook_signatures\b/.test(sql));
  t.truthy(purge, 'the repository prepares a purge of hook_signatures');
  const details = (db.prepare(`EXPLAIN QUERY PLAN ${purge!}`).all(0) as { detail: string }[]).map(
    (row) => row.detail,
  );
  t.true(
    details.some((detail) => detail.includes('USING INDEX hook_signatures_by_expiry')),
    details.join('\n'),
  );
});
