// svc webhooks replay is bounded (issue 39): 50,000 failed deliveries seeded straight into the
// store, replayed in batches with the event loop let go between them (an observer on each turn
// counts what was written in between), a --limit that cuts the replay, and a summary answer (the list only on request).
import { performance } from 'node:perf_hooks';
import test from 'ava';
import { REPLAY_BATCH } from '../../daemon/webhooks/deliveries/replay.js';
import { WebhookCreateBody } from '../../shared/schemas/webhooks.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

// 50,000: the one-transaction replay held the loop about 2 s here; batched, the longest gap is
// about 0.1 s on an idle machine.
const SEEDED = 50_000;
let svc: TestApp;
let hookId: string;

test.before(async () => {
  svc = await buildTestApp();
  const hook = svc.services.webhooks.create(
    svc.defaultWorkspaceId,
    WebhookCreateBody.parse({ url: 'http://127.0.0.1:9/hook', events: ['agent.created'] }),
  );
  hookId = hook.id;
  // One failed delivery per event, as a receiver that was down would leave them.
  const insert = svc.services.db.prepare(
    `INSERT INTO deliveries (id, webhook_id, workspace_id, event_id, event_type, body, status, attempts, created_at)
     VALUES (?, ?, ?, ?, 'agent.created', '{"data":{}}', 'failed', 1, ?)`,
  );
  svc.services.db.transaction(() => {
    for (let i = 0; i < SEEDED; i++) {
      const n = String(i).padStart(6, '0');
      insert.run(`del_seed${n}`, hookId, svc.defaultWorkspaceId, `evt_seed${n}`, 1000 + i);
    }
  })();
});

test.after.always(async () => {
  await svc?.cleanup();
});

const filter = (over: { limit: number; dryRun?: boolean; includeDeliveries?: boolean }) => ({
  from: 0,
  to: Number.MAX_SAFE_INTEGER,
  status: 'failed' as const,
  dryRun: false,
  includeDeliveries: false,
  ...over,
});

test.serial('a dry run past the limit counts what matched and lists only on request', async (t) => {
  const summary = await svc.services.deliveries.replay(
    svc.defaultWorkspaceId,
    hookId,
    filter({ limit: 1000, dryRun: true }),
  );
  t.like(summary, {
    count: 1000,
    matched: SEEDED,
    limit: 1000,
    truncated: true,
    first_event_id: 'evt_seed000000',
    last_event_id: 'evt_seed000999',
  });
  t.is(summary.deliveries, undefined, 'the list only on request');
  const listed = await svc.services.deliveries.replay(
    svc.defaultWorkspaceId,
    hookId,
    filter({ limit: 10, dryRun: true, includeDeliveries: true }),
  );
  t.is(listed.deliveries?.length, 10);
  t.true(listed.deliveries!.every((d) => d.delivery_id === null));
});

test.serial(
  'replaying 50,000 deliveries lets the event loop go after each batch; answers a summary',
  async (t) => {
    // What the replay guarantees, counted instead of timed: at most REPLAY_BATCH deliveries are
    // written between two turns of the event loop (one transaction a batch, the loop let go in
    // between), so the daemon's other work waits one batch at most, however slow the machine.
    // An observer on every turn (setImmediate) reads how many deliveries exist: the newest
    // rowid, as replayed deliveries are appended. (The time figure is the bench's to judge.)
    const newestStmt = svc.services.db.prepare<[], { n: number }>(
      'SELECT max(rowid) AS n FROM deliveries',
    );
    const newest = () => newestStmt.get()!.n;
    const seen = [newest()];
    let observing = true;
    const observe = () => {
      if (!observing) return;
      seen.push(newest());
      setImmediate(observe);
    };
    setImmediate(observe);
    const started = performance.now();
    const answer = await svc.services.deliveries.replay(
      svc.defaultWorkspaceId,
      hookId,
      filter({ limit: 100_000 }),
    );
    const took = performance.now() - started;
    observing = false;
    seen.push(newest());
    const steps = seen.slice(1).map((n, i) => n - seen[i]!);
    const largest = Math.max(...steps);
    const bytes = JSON.stringify(answer).length;
    t.log(
      `replayed ${answer.count} in ${took.toFixed(0)} ms over ${seen.length - 1} event-loop turns; at most ${largest} written in one; answer ${bytes} bytes`,
    );
    t.like(answer, { count: SEEDED, matched: SEEDED, truncated: false });
    t.is(answer.deliveries, undefined);
    t.true(bytes < 1000, `a summary answer, not the list (${bytes} bytes)`);
    // The one-transaction replay wrote all 50,000 in one turn.
    t.true(largest <= REPLAY_BATCH, `at most ${REPLAY_BATCH} a turn, saw ${largest}`);
    t.true(
      steps.filter((step) => step > 0).length >= SEEDED / REPLAY_BATCH,
      'written over one turn per batch at least',
    );
    const stored = svc.services.db
      .prepare<[string], { n: number }>(
        "SELECT count(*) AS n FROM deliveries WHERE webhook_id = ? AND status = 'pending'",
      )
      .get(hookId);
    t.is(stored?.n, SEEDED, 'every replayed event has its new delivery');
  },
);
