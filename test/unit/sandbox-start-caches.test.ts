// What makes a test sandbox (svc/testing) quick to create and stop: a migrated store copied in
// instead of migrations run, response serializers and templates made once per process (and a
// serializer only on its route's first answer), and no
// checkpoint worker thread to start and stop. Each is checked for what it must keep: the same
// schema, the same answers, a serializer shared by the apps that answer with its schema object.
import test from 'ava';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deferredSerializer, serializerFor } from '../../daemon/http/serializers.js';
import { MIGRATIONS } from '../../daemon/store/migrations.js';
import { openDatabase } from '../../daemon/store/database.js';
import { loadTemplates } from '../../daemon/templates/template.loader.js';
import { createSandbox } from '../../testing/index.js';
import { writeMigratedStore } from '../../testing/template-store.js';

function schemaOf(file: string) {
  const db = new Database(file, { readonly: true });
  try {
    return {
      version: db.pragma('user_version', { simple: true }),
      tables: db
        .prepare(
          "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name",
        )
        .all(),
    };
  } finally {
    db.close();
  }
}

test('the template store has the schema that running every migration makes', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-template-test-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const copied = join(dir, 'copied.db');
  writeMigratedStore(copied);
  const migrated = join(dir, 'migrated.db');
  openDatabase(migrated).close();
  const copy = schemaOf(copied);
  t.is(copy.version, MIGRATIONS.at(-1)!.version);
  t.true(copy.tables.length > 20);
  t.deepEqual(copy, schemaOf(migrated));
});

test('a serializer is compiled once per schema object', (t) => {
  const schema = { type: 'object', properties: { id: { type: 'string' } } };
  const first = serializerFor(schema);
  t.is(serializerFor(schema), first, 'two apps, one schema object: one serializer');
  t.is(first({ id: 'a', secret: 'b' }), '{"id":"a"}');
  t.not(serializerFor({ ...schema }), first, 'another schema object is compiled on its own');
});

test("a route's serializer is made on its first answer, then kept", (t) => {
  const schema = { type: 'object', properties: { id: { type: 'string' } } };
  let made = 0;
  const serialize = deferredSerializer(() => {
    made += 1;
    return schema;
  });
  t.is(made, 0, 'nothing is converted or compiled before an answer');
  t.is(serialize({ id: 'a', secret: 'b' }), '{"id":"a"}', 'only the declared fields are sent');
  t.is(serialize({ id: 'c' }), '{"id":"c"}');
  t.is(made, 1);
  t.is(deferredSerializer(() => schema)({ id: 'd' }), '{"id":"d"}');
  t.is(made, 1, 'another app: the schema object is compiled once per process');
});

test('the templates are read once per process and cannot be changed by a caller', (t) => {
  const templates = loadTemplates();
  t.is(loadTemplates(), templates);
  t.true(Object.isFrozen(templates));
});

test('an embedded sandbox runs no checkpoint worker: its connection checkpoints itself', async (t) => {
  await using sb = await createSandbox();
  const services = (sb as unknown as { daemon: { svc: { services: any } } }).daemon.svc.services;
  t.is(services.checkpointer, undefined);
  t.is(services.db.pragma('wal_autocheckpoint', { simple: true }), 1000);
  const created = await sb.api.POST('/v1/webhooks', {
    body: { url: 'https://example.com/hook', events: ['agent.created'] },
  });
  t.is(created.response.status, 201);
  t.regex(created.data!.data.secret!, /^whsec_/, 'the answer is serialized whole');
});
