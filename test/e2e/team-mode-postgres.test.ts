// Team mode on PostgreSQL (issue 53), against a throwaway cluster of this file's own (it is
// stopped and started under a running daemon): a store URL alone gives the data dir's private
// sandbox, --sandbox a named one that another data dir opens with the same key; an unreachable
// PostgreSQL is a clear error at start; an outage answers 503 with Retry-After, then the daemon
// reconnects; an acknowledged write survives SIGKILL; svc state export|import move a sandbox
// between the stores with the same listings.
import test from 'ava';
import Database from 'better-sqlite3';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertExit, runCli, startDaemon, type TestDaemon } from '../helpers/daemon.js';
import { control } from '../helpers/api.js';
import { psql, throwawayPostgres, twoDaemonsOn, type TestPostgres } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp-dir.js';
import { activeAgent, apiFor, createWorkflow } from '../helpers/workflows.js';
import { dataDirSandbox } from '../../shared/store-url.js';

let pg: Required<TestPostgres>;
test.before(async () => {
  pg = await throwawayPostgres();
});

const started: TestDaemon[] = [];
test.afterEach.always(async () => {
  await Promise.all(started.splice(0).map((daemon) => daemon.stop().catch(() => undefined)));
});

async function daemonOn(store: string, args: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const daemon = await startDaemon({ env: { SVC_STORE_URL: store, ...env }, args });
  started.push(daemon);
  return daemon;
}

/**
 * What a snapshot file holds of the daemons that served its sandbox: their registry rows, what
 * they held, the rate windows they counted, dashboard logins, the operator credentials they
 * minted and the secret key's verifier. A snapshot is the sandbox's data, so all are none.
 */
function servedBy(file: string): Record<string, number> {
  const db = new Database(file, { readonly: true });
  try {
    const count = (sql: string) => db.prepare<[], { n: number }>(sql).get()!.n;
    return {
      daemons: count('SELECT count(*) AS n FROM daemons'),
      step_claims: count('SELECT count(*) AS n FROM run_step_claims'),
      claimed_timers: count('SELECT count(*) AS n FROM timers WHERE claimed_by IS NOT NULL'),
      rate_counters: count('SELECT count(*) AS n FROM rate_counters'),
      dashboard_login_tokens: count('SELECT count(*) AS n FROM dashboard_login_tokens'),
      dashboard_sessions: count('SELECT count(*) AS n FROM dashboard_sessions'),
      operator_keys: count("SELECT count(*) AS n FROM api_keys WHERE kind = 'operator'"),
      key_verifier: count("SELECT count(*) AS n FROM settings WHERE key = 'secret_key_verifier'"),
    };
  } finally {
    db.close();
  }
}

const SERVED_BY_NONE = {
  daemons: 0,
  step_claims: 0,
  claimed_timers: 0,
  rate_counters: 0,
  dashboard_login_tokens: 0,
  dashboard_sessions: 0,
  operator_keys: 0,
  key_verifier: 0,
};

async function agentNames(daemon: TestDaemon): Promise<string[]> {
  const listed = await daemon.cli(['agents', 'list', '--limit', '100', '--json']);
  if (listed.code !== 0) throw new Error(`svc agents list: ${listed.stderr}`);
  return (listed.json().data as { name: string }[]).map((agent) => agent.name).sort();
}

test.serial(
  'a store URL alone: the data dir sandbox, private to it; svc status names it',
  async (t) => {
    const a = await daemonOn(pg.url);
    const b = await daemonOn(pg.url);
    const status = (await a.cli(['status', '--json'])).json();
    t.deepEqual(status.store, {
      kind: 'postgres',
      location: pg.url,
      sandbox: dataDirSandbox(a.dataDir),
    });
    const human = await a.cli(['daemon', 'status']);
    t.regex(human.stdout, new RegExp(`store +PostgreSQL ${pg.url}, sandbox svc_`));
    // Alone on its sandbox, the daemon is listed all the same (issue 54: svc status lists the
    // sandbox's daemons), so that a second one joining is seen as the second; --json too.
    t.like(status.daemons[0], { self: true, state: 'live', address: a.url, pid: a.pid });
    t.is(status.daemons.length, 1);
    const overview = await a.cli(['status']);
    assertExit(t, overview, 0);
    t.regex(overview.stdout, /^daemons {5}1 live of 1 listed \(real time\)$/m);
    t.regex(
      overview.stdout,
      new RegExp(
        `^  \\* ${status.daemons[0].id} ${a.url} \\(pid ${a.pid} on .+, since .+\\): live, last heartbeat .+, holds 0 timers and 0 runs$`,
        'm',
      ),
    );
    const { workspaceId } = await a.operator();
    await activeAgent(await apiFor(a, workspaceId), { name: 'Only in A' });
    t.deepEqual(await agentNames(a), ['Only in A']);
    t.deepEqual(await agentNames(b), [], 'another data dir never sees it');
    t.true(
      psql(pg.url, "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'svc_%'").includes(
        dataDirSandbox(b.dataDir),
      ),
    );
  },
);

test.serial(
  '--sandbox names a sandbox another data dir opens with its key; another key is refused',
  async (t) => {
    const first = await daemonOn(pg.url, ['--sandbox', 'staging']);
    const { workspaceId } = await first.operator();
    await activeAgent(await apiFor(first, workspaceId), { name: 'Shared' });
    const key = join(tempDir('svc-pg-key-'), 'staging.key');
    copyFileSync(join(first.dataDir, 'secret.key'), key);
    await first.stop();
    started.splice(started.indexOf(first), 1);

    // Another data dir, without the key: refused at start, naming the sandbox and the option.
    const keyless = tempDir('svc-pg-keyless-');
    const refused = await first.cli(['daemon', 'start', '--port', '0', '--sandbox', 'staging'], {
      env: { SVC_DATA_DIR: keyless, SVC_STORE_URL: pg.url },
    });
    assertExit(t, refused, 1);
    t.regex(
      refused.stderr,
      /the sandbox staging \(postgres:\/\/.*\) keeps its secrets sealed with a key, and there is no key file at/,
    );
    t.regex(refused.stderr, /--secret-key-file \(SVC_SECRET_KEY_FILE\)/);

    // With a copy of the key (given as a file): the same sandbox, the same agent.
    const second = await daemonOn(`${pg.url}?sandbox=staging`, ['--secret-key-file', key]);
    t.deepEqual(await agentNames(second), ['Shared']);
    const status = (await second.cli(['status', '--json'])).json();
    t.is(status.store.sandbox, 'staging');
  },
);

test.serial(
  'a PostgreSQL that cannot be reached: exit 1 naming host:port and database, never the password',
  async (t) => {
    const dataDir = tempDir('svc-pg-down-');
    const refused = await runCli(
      ['daemon', 'start', '--port', '0', '--store', 'postgres://svc:hunter2@127.0.0.1:1/teamdb'],
      { env: { SVC_DATA_DIR: dataDir } },
    );
    assertExit(t, refused, 1);
    t.regex(refused.stderr, /127\.0\.0\.1:1\/teamdb/);
    t.false(refused.stderr.includes('hunter2'));
    t.false(/\n\s+at /.test(refused.stderr), 'no stack');
  },
);

test.serial(
  'PostgreSQL stopped under a running daemon: 503 with Retry-After, then it reconnects; an acknowledged write survives SIGKILL',
  async (t) => {
    const d = await daemonOn(pg.url);
    const { workspaceId } = await d.operator();
    const api = await apiFor(d, workspaceId);
    t.is((await api('GET', '/agents')).status, 200);
    pg.halt();
    try {
      const { key } = await d.operator();
      const read = await d.callJson('GET', '/v1/agents', undefined, { key, tenant: workspaceId });
      t.is(read.status, 503, read.text);
      t.is(read.headers.get('retry-after'), '5');
      t.is(read.body.error.code, 'service_unavailable');
      t.regex(read.body.error.message, /cannot be reached just now; nothing was changed/);
      const write = await d.callJson(
        'POST',
        '/v1/agents',
        { name: 'x', type: 'custom', ontology: 'retail-v1' },
        { key, tenant: workspaceId },
      );
      t.is(write.status, 503, write.text);
      const status = await d.cli(['status']);
      assertExit(t, status, 1);
      t.regex(status.stderr, /cannot be reached just now/);
    } finally {
      pg.start();
    }
    t.is((await api('GET', '/agents')).status, 200, 'works again once PostgreSQL is back');
    const created = await activeAgent(api, { name: 'Acknowledged' });
    process.kill(d.pid, 'SIGKILL');
    const again = await d.cli(['daemon', 'start', '--port', '0', '--json']);
    assertExit(t, again, 0);
    t.deepEqual(await agentNames(d), ['Acknowledged']);
    t.truthy(created.id);
  },
);

test.serial(
  'svc state export from SQLite, import into PostgreSQL: the same listings; and back',
  async (t) => {
    const lite = await daemonOn('');
    const { workspaceId } = await lite.operator();
    const api = await apiFor(lite, workspaceId);
    for (const name of ['Alpha', 'Beta', 'Gamma']) await activeAgent(api, { name });
    const hook = await api('POST', '/webhooks', {
      url: 'https://example.com/hook',
      events: ['workflow.deleted'],
    });
    t.is(hook.status, 201, JSON.stringify(hook.body));
    const snapshot = join(tempDir('svc-pg-snap-'), 'lite.svc');
    assertExit(t, await lite.cli(['state', 'export', snapshot]), 0);
    // The SQLite daemon's own registry row and operator credential stay with it.
    t.deepEqual(servedBy(snapshot), SERVED_BY_NONE, 'the SQLite export carries no daemon rows');

    // The PostgreSQL daemon takes the same key (the snapshot's secrets are sealed with it).
    const key = join(tempDir('svc-pg-snapkey-'), 'key');
    copyFileSync(join(lite.dataDir, 'secret.key'), key);
    const team = await daemonOn(pg.url, ['--secret-key-file', key]);
    const imported = await team.cli(['state', 'import', snapshot, '--json']);
    assertExit(t, imported, 0);
    // Listed as the CLI lists them (the operator credential is minted anew by an import).
    const listings = async (daemon: TestDaemon) => {
      const list = async (what: string) => {
        const limit = what === 'workspaces' ? [] : ['--limit', '100'];
        const listed = await daemon.cli([what, 'list', ...limit, '--json']);
        assertExit(t, listed, 0);
        return listed.json().data;
      };
      return {
        agents: await list('agents'),
        webhooks: await list('webhooks'),
        events: await list('events'),
        workspaces: await list('workspaces'),
      };
    };
    const fromLite = await listings(lite);
    const onTeam = await listings(team);
    t.deepEqual(onTeam, fromLite);
    t.is(onTeam.agents.length, 3);

    // A change on PostgreSQL, exported, imported into a new SQLite data dir: the same listings.
    const created = await team.cli([
      'agents',
      'create',
      '--name',
      'Delta',
      '--type',
      'custom',
      '--ontology',
      'retail-v1',
      '--json',
    ]);
    assertExit(t, created, 0);
    // Deployed now: an agent left training turns active by a timer, at a moment that differs
    // between the two daemons, and its updated_at with it.
    assertExit(t, await team.cli(['agents', 'deploy', created.json().id as string]), 0);
    // Who serves the team sandbox, in its rows: the daemon's registry row and its operator
    // credential (there already), a dashboard login (a session and an unused link's token), the
    // rate windows the requests above counted, and claims a daemon holds mid-step (planted: a
    // step is claimed only while it runs).
    const link = await team.cli(['dashboard', '--no-open', '--json']);
    assertExit(t, link, 0);
    const login = await fetch(link.json().login_url as string, { redirect: 'manual' });
    t.is(login.status, 303);
    assertExit(t, await team.cli(['dashboard', '--no-open']), 0);
    const sandbox = dataDirSandbox(team.dataDir);
    psql(
      pg.url,
      `INSERT INTO ${sandbox}.run_step_claims (execution_id, act_key, attempt, daemon_id, claimed_at)
       VALUES ('exe_planted', 'step', 1, 'dmn_planted', 0)`,
    );
    const inStore = (table: string) =>
      Number(psql(pg.url, `SELECT count(*) FROM ${sandbox}.${table}`));
    for (const table of [
      'daemons',
      'dashboard_sessions',
      'dashboard_login_tokens',
      'rate_counters',
    ]) {
      t.true(inStore(table) > 0, `the team sandbox has ${table} rows to leave out`);
    }
    const back = join(tempDir('svc-pg-back-'), 'team.svc');
    assertExit(t, await team.cli(['state', 'export', back]), 0);
    t.deepEqual(servedBy(back), SERVED_BY_NONE, 'the PostgreSQL export carries no daemon rows');
    t.true(inStore('daemons') > 0, 'the export leaves the live sandbox as it was');
    const local = await daemonOn('', ['--secret-key-file', key]);
    assertExit(t, await local.cli(['state', 'import', back]), 0);
    t.deepEqual(await listings(local), await listings(team));
    t.deepEqual(await agentNames(local), ['Alpha', 'Beta', 'Delta', 'Gamma']);

    // svc state reset on PostgreSQL: an empty sandbox, which then works as a new one does.
    assertExit(t, await team.cli(['state', 'reset', '--yes']), 0);
    t.deepEqual(await agentNames(team), []);
  },
);

test.serial(
  'svc state export|import between the stores, both ways: workflows, runs (a waiting one completes after each move), webhooks and keys list the same',
  async (t) => {
    const lite = await daemonOn('');
    const { workspaceId } = await lite.operator();
    const api = await apiFor(lite, workspaceId);
    const agent = await activeAgent(api, { name: 'Mover' });
    const quick = await createWorkflow(api, {
      name: 'Replies',
      status: 'active',
      steps: [
        {
          id: 'reply',
          name: 'Reply',
          type: 'agent_action',
          agent_id: agent.id,
          config: { action: 'reply' },
        },
      ],
    });
    const slow = await createWorkflow(api, {
      name: 'Waits an hour',
      status: 'active',
      settings: { timeout_seconds: 86_400 },
      steps: [{ id: 'pause', name: 'Pause', type: 'wait', config: { duration_seconds: 3600 } }],
    });
    const hook = await api('POST', '/webhooks', {
      url: 'https://example.com/hook',
      events: ['workflow.deleted'],
    });
    t.is(hook.status, 201, JSON.stringify(hook.body));
    const minted = await lite.cli([
      'keys',
      'create',
      '--name',
      'ci',
      '--scopes',
      'workflows:read workflows:execute',
      '--json',
    ]);
    assertExit(t, minted, 0);
    const ci = { key: minted.json().key as string, tenant: workspaceId };

    const execute = async (daemon: TestDaemon, workflow: string, n: number) => {
      const run = await daemon.callJson(
        'POST',
        `/v1/workflows/${workflow}/execute`,
        { input: { n } },
        ci,
      );
      t.is(run.status, 202, run.text);
      return run.body.data.execution_id as string;
    };
    const waitFor = async (daemon: TestDaemon, run: string) =>
      assertExit(t, await daemon.cli(['workflows', 'wait', run]), 0);
    await waitFor(lite, await execute(lite, quick, 1));
    const parked = await execute(lite, slow, 2);
    // Nothing in flight: the parked run's timer is stored before the snapshot is taken.
    assertExit(t, await lite.cli(['settle']), 0);

    // Listed by REST and the control channel (a CLI process per list is slow on a loaded
    // machine); keys without the operator's, which an import mints anew.
    const listings = async (daemon: TestDaemon) => {
      const credential = await control<{ key: string }>(daemon, 'auth.operatorCredential');
      const list = async (path: string) => {
        const listed = await daemon.callJson('GET', `/v1${path}`, undefined, {
          key: credential.key,
          tenant: workspaceId,
        });
        t.is(listed.status, 200, listed.text);
        return listed.body.data;
      };
      const [agents, workflows, quickRuns, slowRuns, webhooks, events, keys] = await Promise.all([
        list('/agents?limit=100'),
        list('/workflows?limit=100'),
        list(`/workflows/${quick}/executions?limit=100`),
        list(`/workflows/${slow}/executions?limit=100`),
        list('/webhooks?limit=100'),
        list('/events?limit=100'),
        control<{ name: string }[]>(daemon, 'keys.list'),
      ]);
      const runs = [quickRuns, slowRuns];
      return {
        agents,
        workflows,
        runs,
        webhooks,
        events,
        keys: keys.filter((k) => k.name === 'ci'),
      };
    };
    const moved = async (from: TestDaemon, to: TestDaemon) => {
      const file = join(tempDir('svc-pg-move-'), 'moved.svc');
      assertExit(t, await from.cli(['state', 'export', file]), 0);
      assertExit(t, await to.cli(['state', 'import', file]), 0);
      const [there, here] = await Promise.all([listings(to), listings(from)]);
      t.deepEqual(there, here);
    };

    // SQLite -> PostgreSQL: the same listings, the key works, the parked run completes there.
    const key = join(tempDir('svc-pg-movekey-'), 'key');
    copyFileSync(join(lite.dataDir, 'secret.key'), key);
    const team = await daemonOn(pg.url, ['--secret-key-file', key]);
    await moved(lite, team);
    const onTeam = await listings(team);
    t.is(onTeam.keys.length, 1);
    t.deepEqual(
      onTeam.runs.map((runs: { status: string }[]) => runs.map((run) => run.status)),
      [['completed'], ['running']],
    );
    await team.advance('2h');
    await waitFor(team, parked);

    // PostgreSQL -> SQLite, with a run parked on PostgreSQL: it completes on SQLite.
    const parkedOnTeam = await execute(team, slow, 3);
    assertExit(t, await team.cli(['settle']), 0);
    const local = await daemonOn('', ['--secret-key-file', key]);
    await moved(team, local);
    await local.advance('2h');
    await waitFor(local, parkedOnTeam);
    const ends = await local.cli([
      'events',
      'list',
      '--type',
      'workflow.execution.completed',
      '--limit',
      '100',
      '--json',
    ]);
    assertExit(t, ends, 0);
    t.deepEqual(
      (ends.json().data as { data: { execution_id?: string; id?: string } }[])
        .map((event) => event.data.execution_id ?? event.data.id)
        .filter((id) => id === parked || id === parkedOnTeam)
        .sort(),
      [parked, parkedOnTeam].sort(),
      'each parked run completed once',
    );
  },
);

test.serial(
  "revoking a live daemon's operator key: its CLI is refused with how to get a new one (restart it, not svc keys create), which works",
  async (t) => {
    const [a, b] = await twoDaemonsOn(pg.url, 'revoked_operator', started);
    assertExit(t, await b.cli(['agents', 'list']), 0);
    // svc keys list on A lists B's operator key (never A's own), as docs/team-mode.md says.
    const listed = await a.cli(['keys', 'list', '--json']);
    assertExit(t, listed, 0);
    const others = (listed.json().data as { id: string; name: string }[]).filter((key) =>
      key.name.startsWith('Local operator (CLI) of '),
    );
    t.is(others.length, 1, listed.stdout);
    const bKey = others[0]!;
    assertExit(t, await a.cli(['keys', 'revoke', bKey.id]), 0);

    const refused = await b.cli(['agents', 'list']);
    assertExit(t, refused, 1);
    t.is(
      refused.stderr.trim(),
      `Error: The API key ${bKey.id} was revoked: it is the operator credential "${bKey.name}", which the CLI of that data dir uses, so a key from svc keys create will not let that CLI in. Its daemon makes a new one when it starts: on that machine, run svc daemon stop, then svc daemon start with the options it was started with (--store, --sandbox, --secret-key-file).`,
    );

    // What it says works: B stopped and started again as it was (its key file copied anew).
    const key = join(tempDir('svc-pg-revoked-key-'), 'sandbox.key');
    copyFileSync(join(a.dataDir, 'secret.key'), key);
    assertExit(t, await b.cli(['daemon', 'stop']), 0);
    const again = await b.cli([
      'daemon',
      'start',
      '--port',
      '0',
      '--sandbox',
      'revoked_operator',
      '--secret-key-file',
      key,
    ]);
    assertExit(t, again, 0);
    assertExit(t, await b.cli(['agents', 'list']), 0);
  },
);

test.serial(
  'svc daemon restart comes back on the store, sandbox and key it was started with',
  async (t) => {
    // Given as options, not variables: restart used to start it again on the data dir's SQLite.
    const key = join(tempDir('svc-pg-restart-key-'), 'team.key');
    const daemon = await startDaemon({
      args: ['--store', pg.url, '--sandbox', 'restarts', '--secret-key-file', key],
    });
    started.push(daemon);
    const { workspaceId } = await daemon.operator();
    await activeAgent(await apiFor(daemon, workspaceId), { name: 'Kept' });

    // No SVC_STORE_URL either (the PostgreSQL pass sets one for every CLI it runs): a variable
    // given again would be followed, as an option would.
    const noStoreVariable = { env: { SVC_STORE_URL: undefined } };
    const restarted = await daemon.cli(['daemon', 'restart', '--json'], noStoreVariable);
    assertExit(t, restarted, 0);
    const status = (await daemon.cli(['status', '--json'])).json();
    t.deepEqual(status.store, { kind: 'postgres', location: pg.url, sandbox: 'restarts' });
    t.deepEqual(await agentNames(daemon), ['Kept']);

    // A URL with a password: it is not written down, so restart asks for the store again, and
    // leaves the daemon running. (This throwaway cluster trusts, so the password is not checked.)
    const withPassword = new URL(pg.url);
    withPassword.password = 'not-kept';
    const again = await daemon.cli(
      ['daemon', 'restart', '--store', withPassword.href],
      noStoreVariable,
    );
    assertExit(t, again, 0);
    const refused = await daemon.cli(['daemon', 'restart'], noStoreVariable);
    assertExit(t, refused, 2);
    t.regex(refused.stderr, /whose URL was given with a password, and svc does not keep passwords/);
    t.regex(refused.stderr, /svc daemon restart --store postgres:\/\/user:PASSWORD@/);
    t.notRegex(refused.stderr, /not-kept/);
    t.deepEqual(await agentNames(daemon), ['Kept'], 'the daemon was not stopped');
  },
);
