// svc webhooks replay is bounded (issue 39): 50,000 failed deliveries seeded straight into the
// store, replayed in batches with the event loop let go between them (a timer records the
// longest gap), a --limit that cuts the replay, and a summary answer (the list only on request).
import { performance } from 'node:perf_hooks';
import test from 'ava';
import { WebhookCreateBody } from '../../shared/schemas/webhooks.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

// 50,000: enough that the one-transaction replay held the loop about 2 s here (20,000 held it
// 0.84 s on an idle machine, under the bound); batched, the longest gap is about 0.1 s.
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
  'replaying 50,000 deliveries never holds the event loop long; answers a summary',
  async (t) => {
    let longest = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    }, 5);
    const started = performance.now();
    const answer = await svc.services.deliveries.replay(
      svc.defaultWorkspaceId,
      hookId,
      filter({ limit: 100_000 }),
    );
    const took = performance.now() - started;
    clearInterval(ticker);
    longest = Math.max(longest, performance.now() - last);
    const bytes = JSON.stringify(answer).length;
    t.log(
      `replayed ${answer.count} in ${took.toFixed(0)} ms; longest event-loop gap ${longest.toFixed(0)} ms; answer ${bytes} bytes`,
    );
    t.like(answer, { count: SEEDED, matched: SEEDED, truncated: false });
    t.is(answer.deliveries, undefined);
    t.true(bytes < 1000, `a summary answer, not the list (${bytes} bytes)`);
    // Generous bound: the one-transaction replay held the loop about 2 s for this many.
    t.true(longest < 1000, `longest event-loop gap ${longest.toFixed(0)} ms`);
    const stored = svc.services.db
      .prepare<[string], { n: number }>(
        "SELECT count(*) AS n FROM deliveries WHERE webhook_id = ? AND status = 'pending'",
      )
      .get(hookId);
    t.is(stored?.n, SEEDED, 'every replayed event has its new delivery');
  },
);
