// The operator commands scripts and tests rely on (decisions §4): workspaces, keys (create,
// list, revoke, rotate, expiry), whoami, the sandbox clock, events, help, JSON output and
// exit codes (0 ok, 1 the operation failed, 2 usage).
import test from 'ava';
import type { CliResult } from '../helpers/daemon.js';
import { sharedDaemon } from '../helpers/setup.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const output = (result: CliResult) => result.stdout + result.stderr;

interface KeyCreated {
  id: string;
  key: string;
  name: string;
  scopes: string[];
  workspace_id: string;
  expires_at: string | null;
}

const d = sharedDaemon(test);
let defaultWorkspace: string;

test.before(async () => {
  defaultWorkspace = (await d.operator()).workspaceId;
});

async function createKey(t: { is(a: unknown, b: unknown, m?: string): void }, args: string[]) {
  const result = await d.cli(['keys', 'create', '--name', 'k', ...args, '--json']);
  t.is(result.code, 0, output(result));
  return result.json<KeyCreated>();
}

/** Runs a --json command and checks that stdout is exactly one JSON document. */
async function jsonCommand(
  t: { is(a: unknown, b: unknown, m?: string): void; notThrows(fn: () => unknown): void },
  args: string[],
) {
  const result = await d.cli([...args, '--json']);
  t.is(result.code, 0, `svc ${args.join(' ')}: ${output(result)}`);
  t.notThrows(() => JSON.parse(result.stdout));
  return result.json();
}

// --- clock-dependent tests run serially (AVA runs serial tests before concurrent ones) -------

test.serial('keys rotate: the new key works, the old one too until the grace ends', async (t) => {
  const original = await createKey(t, ['--scopes', 'webhooks:read']);
  const rotated = await d.cli(['keys', 'rotate', original.id, '--json']);
  t.is(rotated.code, 0, output(rotated));
  const body = rotated.json<KeyCreated & { previous: { id: string; expires_at: string } }>();
  t.regex(body.id, /^key_/);
  t.not(body.id, original.id);
  t.regex(body.key, /^sk_test_[A-Za-z0-9]{32,}$/);
  t.not(body.key, original.key);
  t.deepEqual(body.scopes, ['webhooks:read']);
  t.is(body.previous.id, original.id);
  t.regex(body.previous.expires_at, ISO);

  const fresh = await d.request('/v1/auth/me', { key: body.key });
  t.is(fresh.status, 200, fresh.text);
  t.deepEqual(fresh.body.data.scopes, ['webhooks:read']);
  const old = await d.request('/v1/auth/me', { key: original.key });
  t.is(old.status, 200, 'the old key works during the grace period');

  const advanced = await d.cli(['clock', 'advance', '25h']);
  t.is(advanced.code, 0, output(advanced));

  const expired = await d.request('/v1/auth/me', { key: original.key });
  t.is(expired.status, 401);
  t.is(expired.body.error.code, 'invalid_token');
  t.regex(expired.body.error.expires_at, ISO);
  t.is(expired.body.error.expires_at, body.previous.expires_at);
  const stillFresh = await d.request('/v1/auth/me', { key: body.key });
  t.is(stillFresh.status, 200, 'the successor keeps working');
});

test.serial('keys create --expires-in 1h: the key expires when the clock passes it', async (t) => {
  const key = await createKey(t, ['--scopes', 'agents:read', '--expires-in', '1h']);
  t.regex(key.expires_at!, ISO);
  const clock = (await jsonCommand(t, ['clock', 'show'])) as { now: string };
  const ttl = Date.parse(key.expires_at!) - Date.parse(clock.now);
  t.true(ttl > 55 * 60_000 && ttl <= 60 * 60_000, `expires in ${ttl} ms`);

  t.is((await d.request('/v1/auth/me', { key: key.key })).status, 200);
  const advanced = await d.cli(['clock', 'advance', '2h']);
  t.is(advanced.code, 0, output(advanced));
  const expired = await d.request('/v1/auth/me', { key: key.key });
  t.is(expired.status, 401);
  t.is(expired.body.error.code, 'invalid_token');
  t.is(expired.body.error.expires_at, key.expires_at);

  const listed = (await jsonCommand(t, ['keys', 'list'])).data as { id: string; status: string }[];
  t.is(listed.find((k) => k.id === key.id)?.status, 'expired');
});

/**
 * A clock command's answer and the real time just before and after it: its `now` minus its
 * offset lies in between (the daemon reads the same clock). The window replaces a fixed bound
 * on the difference with now, which a CLI call on a loaded machine outlasted (over 10 s).
 */
async function clockCall(
  t: Parameters<typeof jsonCommand>[0],
  args: string[],
): Promise<{ state: { now: string; offset_ms: number }; before: number; after: number }> {
  const before = Date.now();
  const state = (await jsonCommand(t, ['clock', ...args])) as { now: string; offset_ms: number };
  return { state, before, after: Date.now() };
}

/** Whether the answer's `now`, less `offset` ms, is real time at some point of the call. */
function inCall(call: { state: { now: string }; before: number; after: number }, offset: number) {
  // 1 s of slack: now is printed to the ms, the two readings of the clock are not atomic.
  const real = Date.parse(call.state.now) - offset;
  return real >= call.before - 1_000 && real <= call.after + 1_000;
}

test.serial('clock show/advance/set/reset', async (t) => {
  const reset = (await jsonCommand(t, ['clock', 'reset'])) as Record<string, unknown>;
  t.is(reset.offset_ms, 0);

  const shown = await clockCall(t, ['show']);
  t.regex(shown.state.now, ISO);
  t.is(shown.state.offset_ms, 0);
  t.true(inCall(shown, 0), `no offset: real time (${shown.state.now})`);

  const advanced = await clockCall(t, ['advance', '1h']);
  t.is(advanced.state.offset_ms, 3_600_000);
  t.true(inCall(advanced, 3_600_000), `ahead by 1 h (${advanced.state.now})`);

  const iso = (await jsonCommand(t, ['clock', 'advance', 'PT30M'])) as { offset_ms: number };
  t.is(iso.offset_ms, 5_400_000, 'ISO 8601 durations add up');

  const target = '2031-06-01T12:00:00.000Z';
  const set = await clockCall(t, ['set', target]);
  // It ticks from the set time until it answers: ahead of it by no more than the call lasted
  // (a fixed 5 s was outlasted by a CLI call on a loaded machine).
  const drift = Date.parse(set.state.now) - Date.parse(target);
  t.true(drift >= 0 && drift <= set.after - set.before + 1_000, `set to ${set.state.now}`);
  t.true(set.state.offset_ms > 0);

  // The clock keeps ticking from the set time, as fast as real time.
  const later = await clockCall(t, ['show']);
  t.true(Date.parse(later.state.now) >= Date.parse(set.state.now));
  t.true(
    Date.parse(later.state.now) - Date.parse(target) <= later.after - set.before + 1_000,
    `${later.state.now}: no faster than real time`,
  );

  const human = await d.cli(['clock', 'show']);
  t.is(human.code, 0);
  t.true(human.stdout.includes('2031-06-01T12:0'), human.stdout);

  const back = await clockCall(t, ['reset']);
  t.is(back.state.offset_ms, 0);
  t.true(inCall(back, 0), `back to real time (${back.state.now})`);

  for (const bad of [
    ['advance', 'soon'],
    ['advance', '1x'],
    ['set', 'tomorrow'],
  ]) {
    const result = await d.cli(['clock', ...bad]);
    t.is(result.code, 2, `svc clock ${bad.join(' ')}: ${output(result)}`);
  }
  const unchanged = (await jsonCommand(t, ['clock', 'show'])) as { offset_ms: number };
  t.is(unchanged.offset_ms, 0, 'a usage error does not move the clock');
});

// --- everything else ------------------------------------------------------------------------

test('workspaces create/list --json', async (t) => {
  const created = (await jsonCommand(t, [
    'workspaces',
    'create',
    '--name',
    'Acme',
    '--tier',
    'starter',
  ])) as Record<string, unknown>;
  t.regex(String(created.id), /^ws_/);
  t.like(created, { name: 'Acme', tier: 'starter', default: false });

  const list = (await jsonCommand(t, ['workspaces', 'list'])).data as {
    id: string;
    name: string;
    tier: string;
    default: boolean;
  }[];
  t.true(Array.isArray(list));
  t.like(
    list.find((ws) => ws.id === created.id),
    { name: 'Acme', tier: 'starter', default: false },
  );
  const defaults = list.filter((ws) => ws.default);
  t.is(defaults.length, 1);
  t.is(defaults[0]!.id, defaultWorkspace);
  t.is(defaults[0]!.tier, 'enterprise');
  for (const ws of list) {
    t.regex(ws.id, /^ws_/);
    t.is(typeof ws.name, 'string');
    t.true(['free', 'starter', 'business', 'enterprise'].includes(ws.tier));
  }

  const human = await d.cli(['workspaces', 'list']);
  t.is(human.code, 0);
  t.true(human.stdout.includes(String(created.id)));
});

test('workspaces create: a bad or missing tier is a usage error', async (t) => {
  const bad = await d.cli(['workspaces', 'create', '--name', 'X', '--tier', 'platinum']);
  t.is(bad.code, 2, output(bad));
  t.regex(output(bad), /tier/);
  const missing = await d.cli(['workspaces', 'create', '--name', 'X']);
  t.is(missing.code, 2, output(missing));
  t.regex(output(missing), /--tier/);
  const list = (await jsonCommand(t, ['workspaces', 'list'])).data as { name: string }[];
  t.false(
    list.some((ws) => ws.name === 'X'),
    'nothing was created',
  );
});

test('keys create --json: shape, and the key works against GET /v1/auth/me', async (t) => {
  const key = await createKey(t, ['--scopes', 'agents:read workflows:execute']);
  t.regex(key.id, /^key_/);
  t.regex(key.key, /^sk_test_[A-Za-z0-9]{32,}$/);
  t.is(key.name, 'k');
  t.deepEqual([...key.scopes].sort(), ['agents:read', 'workflows:execute']);
  t.is(key.workspace_id, defaultWorkspace);
  t.is(key.expires_at, null);

  const me = await d.request('/v1/auth/me', { key: key.key });
  t.is(me.status, 200, me.text);
  t.deepEqual([...me.body.data.scopes].sort(), ['agents:read', 'workflows:execute']);
  t.is(me.body.data.workspace_id, defaultWorkspace);
  t.is(me.body.data.tier, 'enterprise');

  const expiring = await createKey(t, ['--scopes', 'admin', '--expires-in', '90d']);
  t.regex(expiring.expires_at!, ISO);
});

test('keys create --workspace: the key belongs to that workspace and its tier', async (t) => {
  const ws = (await jsonCommand(t, [
    'workspaces',
    'create',
    '--name',
    'Free one',
    '--tier',
    'free',
  ])) as { id: string };
  const key = await createKey(t, ['--scopes', 'webhooks:read', '--workspace', ws.id]);
  t.is(key.workspace_id, ws.id);
  const me = await d.request('/v1/auth/me', { key: key.key });
  t.is(me.status, 200, me.text);
  t.is(me.body.data.workspace_id, ws.id);
  t.is(me.body.data.tier, 'free');
  t.deepEqual(me.body.data.scopes, ['webhooks:read']);
});

test('the key value never appears in keys list', async (t) => {
  const key = await createKey(t, ['--scopes', 'agents:read']);
  const list = await d.cli(['keys', 'list', '--json']);
  t.is(list.code, 0, output(list));
  const keys = list.json<{ data: Record<string, unknown>[] }>().data;
  const listed = keys.find((k) => k.id === key.id);
  t.truthy(listed);
  t.like(listed, { name: 'k', workspace_id: defaultWorkspace, status: 'active' });
  t.false(list.stdout.includes(key.key), 'the key is in keys list --json');
  t.false(list.stdout.includes(key.key.slice('sk_test_'.length)));
  t.false('key' in listed!);

  const human = await d.cli(['keys', 'list']);
  t.is(human.code, 0);
  t.true(human.stdout.includes(key.id));
  t.false(human.stdout.includes(key.key));
});

test('keys create without --scopes and without a TTY is a usage error naming --scopes', async (t) => {
  const result = await d.cli(['keys', 'create', '--name', 'noscopes']);
  t.is(result.code, 2, output(result));
  t.regex(output(result), /--scopes/);
  const json = await d.cli(['keys', 'create', '--name', 'noscopes', '--json']);
  t.is(json.code, 2);
  const keys = (await jsonCommand(t, ['keys', 'list'])).data as { name: string }[];
  t.false(keys.some((k) => k.name === 'noscopes'));
});

test('keys create with an unknown scope is a usage error', async (t) => {
  const result = await d.cli([
    'keys',
    'create',
    '--name',
    'x',
    '--scopes',
    'agents:read agents:fly',
  ]);
  t.is(result.code, 2, output(result));
  t.regex(output(result), /agents:fly/);
});

test('keys revoke: the key then gets 401 invalid_token', async (t) => {
  const key = await createKey(t, ['--scopes', 'agents:read']);
  t.is((await d.request('/v1/auth/me', { key: key.key })).status, 200);
  const revoked = await d.cli(['keys', 'revoke', key.id, '--json']);
  t.is(revoked.code, 0, output(revoked));
  t.like(revoked.json(), { id: key.id, status: 'revoked' });
  const answer = await d.request('/v1/auth/me', { key: key.key });
  t.is(answer.status, 401);
  t.is(answer.body.error.code, 'invalid_token');
  t.is(answer.body.error.type, 'authentication_error');

  const unknown = await d.cli(['keys', 'revoke', 'key_doesnotexist000000']);
  t.is(unknown.code, 1, output(unknown));
});

test('whoami --json describes the operator credential; --api-key switches to a key', async (t) => {
  const me = (await jsonCommand(t, ['whoami'])) as Record<string, unknown>;
  t.regex(String(me.user_id), /^usr_/);
  t.is(me.workspace_id, defaultWorkspace);
  t.deepEqual(me.scopes, ['admin']);
  t.is(me.tier, 'enterprise');

  const key = await createKey(t, ['--scopes', 'agents:read']);
  const asKey = (await jsonCommand(t, ['whoami', '--api-key', key.key])) as Record<string, unknown>;
  t.deepEqual(asKey.scopes, ['agents:read']);
  t.is(asKey.workspace_id, defaultWorkspace);
});

test('--json outputs are exactly one JSON document on stdout', async (t) => {
  const commands = [
    ['daemon', 'status'],
    ['whoami'],
    ['workspaces', 'list'],
    ['keys', 'list'],
    ['clock', 'show'],
    ['events', 'list'],
  ];
  for (const args of commands) {
    const result = await d.cli([...args, '--json']);
    t.is(result.code, 0, `svc ${args.join(' ')}: ${output(result)}`);
    t.notThrows(() => JSON.parse(result.stdout), `svc ${args.join(' ')}`);
    t.regex(result.stdout.trim(), /^[[{][\s\S]*[\]}]$/);
  }
  // A failing command with --json still prints one document (an error).
  const failed = await d.cli(['events', 'get', 'evt_doesnotexist0000000', '--json']);
  t.is(failed.code, 1, output(failed));
  const body = JSON.parse(failed.stdout) as { error: { code: string; message: string } };
  t.is(body.error.code, 'not_found');
  t.truthy(body.error.message);
});

test('usage errors exit 2', async (t) => {
  const cases = [
    ['frobnicate'],
    ['keys', 'list', '--no-such-flag'],
    ['keys', 'revoke'],
    ['keys', 'create', '--name', 'x', '--scopes', 'admin', '--expires-in', 'eventually'],
    ['events', 'trigger', 'not.a.type'],
    ['clock', 'advance'],
  ];
  for (const args of cases) {
    const result = await d.cli(args);
    t.is(result.code, 2, `svc ${args.join(' ')}: ${output(result)}`);
    t.true(result.stderr.length > 0, `svc ${args.join(' ')} says why on stderr`);
  }
});

test('events trigger, list and get', async (t) => {
  const event = (await jsonCommand(t, ['events', 'trigger', 'agent.created'])) as {
    id: string;
    type: string;
    created_at: string;
    workspace_id: string;
    data: Record<string, unknown>;
  };
  t.regex(event.id, /^evt_/);
  t.is(event.type, 'agent.created');
  t.regex(event.created_at, ISO);
  t.is(event.workspace_id, defaultWorkspace);
  t.is(typeof event.data, 'object');
  t.regex(String(event.data.id), /^agt_/);

  const list = (await jsonCommand(t, ['events', 'list'])) as {
    data: { id: string }[];
    has_more: boolean;
  };
  t.true(Array.isArray(list.data));
  t.is(typeof list.has_more, 'boolean');
  t.true(list.data.some((e) => e.id === event.id));

  const got = await jsonCommand(t, ['events', 'get', event.id]);
  t.deepEqual(got, event);
  t.deepEqual(Object.keys(got as object).sort(), [
    'created_at',
    'data',
    'id',
    'type',
    'workspace_id',
  ]);

  const filtered = (await jsonCommand(t, ['events', 'list', '--type', 'workflow.*'])) as {
    data: { type: string }[];
  };
  t.true(filtered.data.every((e) => e.type.startsWith('workflow.')));
});

test('svc --help and svc keys --help exit 0', async (t) => {
  const help = await d.cli(['--help']);
  t.is(help.code, 0, output(help));
  for (const group of ['daemon', 'workspaces', 'keys', 'clock', 'events', 'whoami'])
    t.true(help.stdout.includes(group), `--help mentions ${group}`);

  const keysHelp = await d.cli(['keys', '--help']);
  t.is(keysHelp.code, 0, output(keysHelp));
  for (const verb of ['create', 'list', 'revoke', 'rotate'])
    t.true(keysHelp.stdout.includes(verb), `keys --help mentions ${verb}`);

  const createHelp = await d.cli(['keys', 'create', '--help']);
  t.is(createHelp.code, 0);
  t.regex(createHelp.stdout, /--scopes/);
});
