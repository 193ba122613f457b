// One set of rules across the daemons of a sandbox (team mode, issue 54): what a daemon keeps
// in memory of shared rows (a workspace's fault rules, a workspace's tier, a secret's value,
// whether an agent has knowledge) follows a change made on another daemon, and a fault rule's
// --times limit counts the calls of every daemon. Two handles on one PostgreSQL sandbox stand
// for two daemons, each with its services and its notices (as app/services.ts wires them).
// Also: each data dir's operator key is listed by the others (to revoke one whose data dir
// never comes back), never by its own daemon; a dashboard login on one daemon is a session on
// every daemon (the rows of migration 029).
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { KnowledgeExtractor } from '../../daemon/agents/knowledge/extractor.js';
import { KnowledgeRepository } from '../../daemon/agents/knowledge/knowledge.repository.js';
import { KnowledgeService } from '../../daemon/agents/knowledge/knowledge.service.js';
import { FaultRepository } from '../../daemon/faults/fault.repository.js';
import { FaultService, type FaultCall } from '../../daemon/faults/fault.service.js';
import { Hooks } from '../../daemon/domain/hooks.js';
import { StoredSessionRows } from '../../daemon/dashboard/session.repository.js';
import { DashboardSessions, SESSION_IDLE_MS } from '../../daemon/dashboard/sessions.js';
import { KeyRepository } from '../../daemon/keys/key.repository.js';
import { KeyService } from '../../daemon/keys/key.service.js';
import { SecretBox } from '../../daemon/platform/secret-box.js';
import { SecretRepository } from '../../daemon/secrets/secret.repository.js';
import { SecretService } from '../../daemon/secrets/secret.service.js';
import type { Db } from '../../daemon/store/db.js';
import { SettingsRepository } from '../../daemon/store/settings.repository.js';
import { TeamNotices } from '../../daemon/store/team-notices.js';
import type { Alarms } from '../../daemon/time/alarms.js';
import { WorkspaceRepository } from '../../daemon/workspaces/workspace.repository.js';
import { WorkspaceService } from '../../daemon/workspaces/workspace.service.js';
import { storeOpener } from '../helpers/postgres.js';
import { StillClock } from '../helpers/still-clock.js';

const clock = new StillClock(Date.UTC(2030, 0, 1));
const box = new SecretBox(randomBytes(32));

/** One daemon's services over its handle, and a way to wait for the next 'rows' notice it hears. */
function daemon(db: Db, dataDir: string) {
  const notices = new TeamNotices(db.notifications, (error) => {
    throw error;
  });
  const workspaces = new WorkspaceService(
    db,
    new WorkspaceRepository(db),
    new SettingsRepository(db),
    clock,
    notices,
  );
  workspaces.bootstrap();
  const faults = new FaultService({
    repo: new FaultRepository(db),
    clock,
    alarms: {} as Alarms,
    existing: { webhook: () => undefined, workflowStep: () => undefined, agent: () => undefined },
    sandbox: true,
    log: { info: () => undefined },
    notices,
  });
  const keys = new KeyService({
    db,
    repo: new KeyRepository(db),
    workspaces,
    clock,
    environment: 'sandbox',
    hooks: new Hooks(),
    operatorOwner: `build-7/${dataDir}`,
  });
  const secrets = new SecretService(new SecretRepository(db), box, clock, notices);
  const dashboard = (now: () => number) =>
    new DashboardSessions(now, new StoredSessionRows(db), 'svc_ui_team');
  const knowledge = new KnowledgeService(
    new KnowledgeRepository(db),
    clock,
    new KnowledgeExtractor(30_000),
    notices,
  );
  // Registered after the services' own listeners: once it hears a notice, so have they.
  const heard: string[] = [];
  let wake: (() => void) | undefined;
  notices.on('rows', (payload) => {
    heard.push(payload);
    wake?.();
  });
  return {
    workspaces,
    dashboard,
    keys,
    faults,
    secrets,
    knowledge,
    /** Resolves once this daemon has heard a 'rows' notice of `cache` (the one a change sent). */
    async heardOf(cache: string): Promise<void> {
      for (;;) {
        const index = heard.findIndex((payload) => payload.startsWith(`${cache} `));
        if (index >= 0) {
          heard.splice(0, index + 1);
          return;
        }
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}

async function twoDaemons(t: import('ava').ExecutionContext) {
  const open = await storeOpener('postgres');
  const handles = [open(), open()];
  t.teardown(() => {
    for (const db of handles) if (db.open) db.close();
  });
  return [daemon(handles[0]!, 'svc-a'), daemon(handles[1]!, 'svc-b')] as const;
}

function httpCall(workspaceId: string, attempt = 1): FaultCall {
  return {
    point: 'http',
    workspaceId,
    url: 'http://127.0.0.1:4000/hooks',
    attempt,
    matchText: () => 'order.created',
  };
}

test('postgres: a fault rule added on one daemon is applied on the other; removed, on neither', async (t) => {
  const [a, b] = await twoDaemons(t);
  const workspaceId = a.workspaces.defaultWorkspaceId;
  // B has asked its rules before the rule exists (it keeps the answer: none).
  t.is(b.faults.decide(httpCall(workspaceId)), undefined);
  const rule = a.faults.add(workspaceId, { url_prefix: 'http://127.0.0.1:4000/', status: 503 });
  await b.heardOf('faults');
  t.is(b.faults.decide(httpCall(workspaceId))?.id, rule.id);
  t.deepEqual(
    b.faults.list(workspaceId).map((view) => [view.id, view.seen, view.hits]),
    [[rule.id, 1, 1]],
  );
  b.faults.remove(workspaceId, rule.id);
  await a.heardOf('faults');
  t.is(a.faults.decide(httpCall(workspaceId)), undefined);
  t.deepEqual(a.faults.list(workspaceId), []);
});

test("postgres: a fault rule's --times counts the hits of every daemon, in the store", async (t) => {
  const [a, b] = await twoDaemons(t);
  const workspaceId = a.workspaces.defaultWorkspaceId;
  const rule = a.faults.add(workspaceId, {
    url_prefix: 'http://127.0.0.1:4000/',
    status: 503,
    times: 2,
  });
  await b.heardOf('faults');
  t.is(a.faults.decide(httpCall(workspaceId))?.id, rule.id, 'hit 1, on A');
  t.is(b.faults.decide(httpCall(workspaceId))?.id, rule.id, 'hit 2, on B');
  t.is(a.faults.decide(httpCall(workspaceId)), undefined, 'retired: A counts B’s hit');
  t.is(b.faults.decide(httpCall(workspaceId)), undefined, 'retired on B too');
  for (const each of [a, b]) {
    t.like(each.faults.list(workspaceId)[0], { seen: 2, hits: 2, retired: true });
  }
});

test("postgres: a workspace's tier changed on one daemon is the other's (its rate limits)", async (t) => {
  const [a, b] = await twoDaemons(t);
  const created = a.workspaces.create('Team', 'free');
  t.is(b.workspaces.get(created.id)?.tier, 'free');
  a.workspaces.setTier(created.id, 'enterprise');
  await b.heardOf('workspaces');
  t.is(b.workspaces.get(created.id)?.tier, 'enterprise');
});

test('postgres: a secret set or deleted on one daemon is what the other reveals', async (t) => {
  const [a, b] = await twoDaemons(t);
  const workspaceId = a.workspaces.defaultWorkspaceId;
  a.secrets.set(workspaceId, 'API_TOKEN', 'first');
  t.is(b.secrets.reveal(workspaceId, 'API_TOKEN'), 'first');
  a.secrets.set(workspaceId, 'API_TOKEN', 'rotated');
  await b.heardOf('secrets');
  t.is(b.secrets.reveal(workspaceId, 'API_TOKEN'), 'rotated');
  a.secrets.delete(workspaceId, 'API_TOKEN');
  await b.heardOf('secrets');
  t.is(b.secrets.reveal(workspaceId, 'API_TOKEN'), undefined);
});

test("postgres: an agent's knowledge uploaded on one daemon is retrieved on the other", async (t) => {
  const [a, b] = await twoDaemons(t);
  const agent = { id: 'agt_faq', workspace_id: a.workspaces.defaultWorkspaceId };
  // B has looked before there was any document (and keeps: none).
  t.deepEqual(b.knowledge.retrieve(agent.id, 'When do orders ship?'), []);
  const text = '# FAQ\n\n## Shipping\n\nOrders ship within two days.\n';
  await a.knowledge.upload(agent, { filename: 'faq.md', content: Buffer.from(text), type: 'faq' });
  await b.heardOf('knowledge');
  t.is(
    b.knowledge.retrieve(agent.id, 'When do orders ship?')[0]?.text,
    'Orders ship within two days.',
  );
});

test("postgres: svc keys list shows the other data dirs' operator keys, never its own; one is revoked by id", async (t) => {
  const [a, b] = await twoDaemons(t);
  a.keys.operatorCredential();
  b.keys.operatorCredential();
  const standard = a.keys.create({ name: 'ci', scopes: ['workflows:read'] }).record;
  const listed = a.keys.list().map((key) => key.name);
  t.deepEqual(listed, ['ci', 'Local operator (CLI) of build-7/svc-b']);
  t.deepEqual(
    b.keys.list().map((key) => key.name),
    ['ci', 'Local operator (CLI) of build-7/svc-a'],
  );
  // A workspace's keys: operator keys belong to none.
  t.deepEqual(
    a.keys.list(a.workspaces.defaultWorkspaceId).map((key) => key.id),
    [standard.id],
  );
  const theirs = a.keys.list().find((key) => key.name.endsWith('svc-b'))!;
  t.not(a.keys.revoke(theirs.id).revoked_at, null);
  // Its own is not offered: revoking it would lock its CLI out until a restart.
  const own = b.keys.list().find((key) => key.name.endsWith('svc-a'))!;
  t.is(
    t.throws(() => a.keys.revoke(own.id))?.message,
    `No API key ${own.id}. List them with: svc keys list`,
  );
});

test('postgres: a dashboard login on one daemon is a session on the other; a token is spent once', async (t) => {
  const [a, b] = await twoDaemons(t);
  let now = Date.UTC(2030, 0, 1);
  const [onA, onB] = [a.dashboard(() => now), b.dashboard(() => now)];
  const { token } = onA.mintLoginToken();
  // Minted through A's CLI, redeemed through B (a balancer's pick): once.
  const redeemed = onB.redeem(token)!;
  t.truthy(redeemed);
  t.is(onA.redeem(token), undefined, 'spent on B: refused on A');
  const { sessionId, session } = redeemed;
  t.deepEqual(onA.session(sessionId), session, 'A knows the session, with the same CSRF token');
  t.is(onA.session('forged'), undefined);
  // Kept alive by requests on either daemon; ended on one, ended on both.
  now += SESSION_IDLE_MS - 1;
  t.truthy(onB.session(sessionId));
  now += SESSION_IDLE_MS - 1;
  t.truthy(onA.session(sessionId), 'B touched it');
  onA.end(sessionId);
  t.is(onB.session(sessionId), undefined);
});
