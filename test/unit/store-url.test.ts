import test from 'ava';
import { resolveConfig, ConfigError } from '../../daemon/process/config.js';
import { dataDirSandbox, resolveStoreSetting, StoreSettingError } from '../../shared/store-url.js';

const DIR = '/home/dev/.local/share/svc';

test('no store URL: the data dir SQLite file; --sandbox alone is refused', (t) => {
  t.deepEqual(resolveStoreSetting({}, DIR), { kind: 'sqlite' });
  t.deepEqual(resolveStoreSetting({ store: '  ' }, DIR), { kind: 'sqlite' });
  const error = t.throws(() => resolveStoreSetting({ sandbox: 'staging' }, DIR), {
    instanceOf: StoreSettingError,
  });
  t.regex(error.message, /--store postgres:\/\//);
});

test('a store URL alone opens the data dir private sandbox, named stably and uniquely', (t) => {
  const store = resolveStoreSetting({ store: 'postgres://svc@db.local:5432/svc' }, DIR);
  t.like(store, { kind: 'postgres', private: true, display: 'postgres://svc@db.local:5432/svc' });
  if (store.kind !== 'postgres') return t.fail();
  t.regex(store.sandbox, /^svc_svc_[0-9a-f]{10}$/);
  t.is(store.sandbox, dataDirSandbox(DIR));
  t.not(dataDirSandbox('/tmp/a/svc'), dataDirSandbox('/tmp/b/svc'));
  t.regex(dataDirSandbox('/tmp/My Project.Data-Dir'), /^svc_my_project_data_dir_[0-9a-f]{10}$/);
  t.regex(dataDirSandbox('/'), /^svc_[0-9a-f]{10}$/);
  // Always a valid schema name (63 bytes at most), however long the directory's name.
  t.true(dataDirSandbox(`/tmp/${'x'.repeat(200)}`).length <= 63);
});

test('--sandbox or ?sandbox= names the sandbox; they must agree; the name is checked', (t) => {
  const url = 'postgresql://svc:s3cret@db.local/team?sandbox=staging&sslmode=disable';
  const store = resolveStoreSetting({ store: url }, DIR);
  t.like(store, { kind: 'postgres', sandbox: 'staging', private: false });
  if (store.kind !== 'postgres') return t.fail();
  // The connection URL keeps the password and other parameters; the shown one has neither
  // the password nor the sandbox parameter.
  t.is(store.url, 'postgresql://svc:s3cret@db.local/team?sslmode=disable');
  t.is(store.display, 'postgresql://svc@db.local/team?sslmode=disable');
  t.like(resolveStoreSetting({ store: url, sandbox: 'staging' }, DIR), { sandbox: 'staging' });
  t.throws(() => resolveStoreSetting({ store: url, sandbox: 'qa' }, DIR), {
    message: /names sandbox staging and --sandbox .* names qa/,
  });
  for (const bad of ['Staging', 'a-b', '1abc', 'public', 'pg_catalog', '', 'x'.repeat(64)]) {
    t.throws(() => resolveStoreSetting({ store: 'postgres://u@h/d', sandbox: bad }, DIR), {
      instanceOf: StoreSettingError,
      message: /A sandbox name is 1 to 63 lower-case letters/,
    });
  }
});

test('a URL that is not PostgreSQL, or lacks a host, database or user, is refused clearly', (t) => {
  const cases: [string, RegExp][] = [
    ['mysql://u@h/d', /must be a PostgreSQL URL.*got a mysql: URL/],
    ['not a url', /is not a URL/],
    ['postgres://u:pw@h', /must name one database/],
    ['postgres://u@h/a/b', /must name one database/],
    ['postgres://h/db', /names no user/],
    ['postgres:///db', /names no host/],
  ];
  for (const [store, message] of cases) {
    const error = t.throws(() => resolveStoreSetting({ store }, DIR), {
      instanceOf: StoreSettingError,
      message,
    });
    t.false(error.message.includes(':pw@'), 'never the password');
  }
  t.false(
    t
      .throws(() => resolveStoreSetting({ store: 'postgres//u:hunter2@h/d' }, DIR))
      .message.includes('hunter2'),
  );
});

test('the daemon reads the store and secret key from flags or SVC_* variables', (t) => {
  const config = resolveConfig(
    { dataDir: '/tmp/svc-x' },
    {
      SVC_STORE_URL: 'postgres://svc@localhost/svc',
      SVC_SANDBOX: 'qa',
      SVC_SECRET_KEY_FILE: 'keys/qa.key',
    },
  );
  t.like(config.store, { kind: 'postgres', sandbox: 'qa' });
  t.is(config.secretKeyFile, `${process.cwd()}/keys/qa.key`);
  const plain = resolveConfig({ dataDir: '/tmp/svc-x' }, {});
  t.deepEqual(plain.store, { kind: 'sqlite' });
  t.is(plain.secretKeyFile, '/tmp/svc-x/secret.key');
  t.throws(() => resolveConfig({ dataDir: '/tmp/svc-x', store: 'http://x/y' }, {}), {
    instanceOf: ConfigError,
  });
});
