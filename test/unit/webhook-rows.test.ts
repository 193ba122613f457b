// WebhookRepository keeps rows (RowCache): a delivery attempt reads its webhook's configuration
// without reading the row again after every attempt's counts, but never a stale status, URL or
// secret; get() always shows the counts as stored.
import test from 'ava';
import { CommitQueue } from '../../daemon/store/commit-queue.js';
import { openDatabase } from '../../daemon/store/database.js';
import { WebhookRepository } from '../../daemon/webhooks/webhook.repository.js';

function setUp() {
  const db = openDatabase(':memory:');
  db.pragma('foreign_keys = OFF');
  const commits = new CommitQueue(db);
  const repo = new WebhookRepository(db, commits);
  repo.insert({
    id: 'hook_1',
    workspace_id: 'ws_1',
    url: 'http://127.0.0.1:9/a',
    description: null,
    events: '["agent.created"]',
    status: 'active',
    secret: 'sealed-1',
    max_attempts: 3,
    backoff_multiplier: 2,
    timeout_seconds: 5,
    created_at: 1,
    updated_at: 1,
  });
  return { db, commits, repo };
}

test('counts added (at once or in a group commit) show in get(); configured() keeps its row', async (t) => {
  const { commits, repo } = setUp();
  const configured = repo.configured('hook_1')!;
  repo.markTriggered('hook_1', 10);
  await commits.run(() => {
    repo.markTriggered('hook_1', 20);
    repo.recordOutcome('hook_1', { delivered: 1, failed: 0, failureAt: null });
  });
  t.is(repo.configured('hook_1'), configured, 'the configuration is not read again');
  const stored = repo.get('hook_1')!;
  t.like(stored, { total_deliveries: 2, delivered_count: 1, last_triggered_at: 20 });
  await commits.run(() => {
    repo.markTriggered('hook_1', 30);
    // Read inside the group, before its counts are written: read again once they are.
    t.is(repo.get('hook_1')!.total_deliveries, 2);
  });
  t.is(repo.get('hook_1')!.total_deliveries, 3);
});

test('a change of status, URL or secret is seen at once by configured()', (t) => {
  const { repo } = setUp();
  t.is(repo.configured('hook_1')!.status, 'active');
  repo.setStatus('hook_1', 'failed', 2);
  t.is(repo.configured('hook_1')!.status, 'failed');
  repo.update({ ...repo.get('hook_1')!, status: 'active', url: 'http://127.0.0.1:9/b' });
  t.like(repo.configured('hook_1'), { status: 'active', url: 'http://127.0.0.1:9/b' });
  repo.setSecret('hook_1', 'sealed-2', 3);
  t.is(repo.configured('hook_1')!.secret, 'sealed-2');
  repo.delete('hook_1');
  t.is(repo.configured('hook_1'), undefined);
  t.is(repo.get('hook_1'), undefined);
});
