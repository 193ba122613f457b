// Cassettes kept in the sandbox's store (team mode, issue 54): every daemon of a sandbox records
// into and replays from the same cassette. Two handles on one store stand for two daemons, each
// with its own cassette folder; the same assertions run on both stores (the rows work on
// SQLite too, though a SQLite daemon keeps its cassettes as files). Also: two daemons recording
// into one cassette keep each other's interactions, a file of a daemon's folder is taken into
// the store once, and a stored cassette is as untrusted as a file (size, nesting, schema).
import test from 'ava';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Cassettes, normalizeRequest, requestKey } from '../../daemon/agents/brains/cassette.js';
import { CassetteFiles } from '../../daemon/agents/brains/cassette-files.js';
import { CassetteRows } from '../../daemon/agents/brains/cassette-rows.js';
import type { Interaction } from '../../daemon/agents/brains/cassette-format.js';
import type { Db, StoreKind } from '../../daemon/store/db.js';
import { TeamNotices } from '../../daemon/store/team-notices.js';
import { STORE_KINDS, storeOpener } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp-dir.js';

/** One daemon's cassettes: in the store `db`, with a cassette folder of its own. */
function daemon(db: Db) {
  const dir = tempDir('svc-cassette-store-');
  const notices = new TeamNotices(db.notifications, (error) => {
    throw error;
  });
  return {
    db,
    dir,
    cassettes: new Cassettes(dir, new CassetteRows(db, notices, new CassetteFiles(dir), () => 0)),
  };
}

async function twoDaemons(t: import('ava').ExecutionContext, kind: StoreKind) {
  const open = await storeOpener(kind);
  const handles = [open(), open()];
  t.teardown(() => {
    for (const db of handles) if (db.open) db.close();
  });
  return { a: daemon(handles[0]!), b: daemon(handles[1]!), db: handles[0]! };
}

/** An interaction answering `question` with `output`. */
function interaction(question: string, output: string): Interaction {
  const request = normalizeRequest({
    model: 'm',
    messages: [{ role: 'user', content: question }],
  });
  return {
    key: requestKey(request),
    request,
    response: { status: 200, body: { choices: [{ message: { content: output } }] } },
  };
}

for (const kind of STORE_KINDS) {
  test(`${kind}: a cassette recorded through one daemon is found through the other`, async (t) => {
    const { a, b } = await twoDaemons(t, kind);
    const asked = interaction('Where is my order?', 'On its way');
    await a.cassettes.record('team/support.json', asked);
    t.deepEqual((await b.cassettes.find('team/support.json', asked.key))?.response, asked.response);
    // The same cassette by another spelling of its name.
    t.truthy(await b.cassettes.find('team/./support.json', asked.key));
    t.is(await b.cassettes.find('other.json', asked.key), undefined, 'no such cassette: empty');
  });

  test(`${kind}: two daemons recording into one cassette keep each other's interactions`, async (t) => {
    const { a, b } = await twoDaemons(t, kind);
    const [first, second, again] = [
      interaction('one', 'A answered'),
      interaction('two', 'B answered'),
      interaction('one', 'B answered it later'),
    ];
    // Both have loaded the cassette (empty) before either records: each records into what is
    // stored, not into its own copy.
    await a.cassettes.load('support.json', 'cassette');
    await b.cassettes.load('support.json', 'cassette');
    await Promise.all([
      a.cassettes.record('support.json', first),
      b.cassettes.record('support.json', second),
    ]);
    const fresh = daemon(b.db);
    t.is((await fresh.cassettes.load('support.json')).data.interactions.length, 2);
    // The same request recorded again: the later answer, in the same place.
    await b.cassettes.record('support.json', again);
    const stored = (await daemon(b.db).cassettes.load('support.json')).data.interactions;
    t.deepEqual(
      stored.map((each) => each.response),
      [again.response, second.response],
    );
    // A's copy lacks B's interactions until it reads the stored one again.
    t.true(await a.cassettes.refresh('support.json'));
    t.truthy(a.cassettes.findLoaded('support.json', second.key));
  });

  test(`${kind}: a file of a daemon's folder is taken into the store once, then read from there`, async (t) => {
    const { a, b } = await twoDaemons(t, kind);
    const given = interaction('Where is my order?', 'From a colleague');
    writeFileSync(
      join(a.dir, 'given.json'),
      JSON.stringify({ svc_cassette: 1, interactions: [given] }),
    );
    t.is(
      await b.cassettes.find('given.json', given.key),
      undefined,
      "not in B's folder, not stored",
    );
    t.truthy(await a.cassettes.find('given.json', given.key));
    t.true(await b.cassettes.refresh('given.json'));
    t.truthy(b.cassettes.findLoaded('given.json', given.key), 'B reads the stored copy');
    // The store's copy is the cassette now: the file changed afterwards is not read again.
    writeFileSync(join(a.dir, 'given.json'), JSON.stringify({ interactions: [] }));
    t.truthy(await daemon(a.db).cassettes.find('given.json', given.key));
    // A malformed file is refused as a file, and not taken in.
    writeFileSync(join(a.dir, 'broken.json'), JSON.stringify({ interactions: [null] }));
    const error = await t.throwsAsync(a.cassettes.find('broken.json', 'k'));
    t.regex(
      error!.message,
      /^Cassette 'broken\.json' is malformed at interactions\[0\]:.*fix the file/,
    );
    t.is(await b.cassettes.find('broken.json', 'k'), undefined);
  });

  test(`${kind}: a malformed or oversized stored cassette fails naming the cassette and the entry`, async (t) => {
    const { a, db } = await twoDaemons(t, kind);
    const put = db.prepare('INSERT INTO cassettes (name, data, updated_at) VALUES (?, ?, 0)');
    put.run(
      'bad.json',
      JSON.stringify({ interactions: [{ key: 'k', request: {}, response: {} }] }),
    );
    put.run('deep.json', `{"interactions":[${'['.repeat(100)}${']'.repeat(100)}]}`);
    put.run('text.json', 'not json');
    put.run('huge.json', 'x'.repeat(16 * 1024 * 1024 + 1));
    const cases: [string, RegExp][] = [
      [
        'bad.json',
        /^Cassette 'bad\.json' in the sandbox's store is malformed at interactions\[0\]\.request\.model: .*; load a good copy of the file with svc agents cassette load FILE --name bad\.json, or record it again with svc agents record\.$/,
      ],
      ['deep.json', /^Cassette 'deep\.json' in the sandbox's store nests .* more than 64 levels/],
      ['text.json', /^Cassette 'text\.json' in the sandbox's store is not a JSON document/],
      ['huge.json', /^Cassette 'huge\.json' in the sandbox's store is 16777217 bytes, more than/],
    ];
    for (const [name, message] of cases) {
      const error = await t.throwsAsync(a.cassettes.find(name, 'k'));
      t.like(error, { code: 'external_api_error', extras: { cassette: name } });
      t.regex(error!.message, message);
    }
    // Recording into it fails the same way and leaves it as it was.
    await t.throwsAsync(a.cassettes.record('bad.json', interaction('x', 'y')), {
      message: /is malformed at interactions\[0\]/,
    });
    // A good copy loaded replaces it.
    const good = interaction('Where is my order?', 'Mended');
    t.deepEqual(await a.cassettes.replace('bad.json', JSON.stringify({ interactions: [good] })), {
      interactions: 1,
    });
    t.truthy(await daemon(db).cassettes.find('bad.json', good.key));
    // A bad copy is refused as the request's fault (400), and nothing is replaced.
    const refused = await t.throwsAsync(a.cassettes.replace('bad.json', '{"interactions":3}'));
    t.like(refused, { code: 'invalid_parameter', param: 'text' });
    t.truthy(await daemon(db).cassettes.find('bad.json', good.key));
  });
}

test('postgres: a daemon drops its copy of a cassette another daemon recorded into', async (t) => {
  const { a, b } = await twoDaemons(t, 'postgres');
  await b.cassettes.load('support.json');
  t.true(b.cassettes.isLoaded('support.json'));
  // Heard after B's cassettes heard it (listeners are called in the order they were added).
  const heard = new Promise<string>((resolve) =>
    new TeamNotices(b.db.notifications).on('rows', resolve),
  );
  await a.cassettes.record('support.json', interaction('one', 'A answered'));
  // Told with A's commit (a 'rows' notice): B reads the cassette again when next asked.
  t.is(await heard, 'cassettes support.json');
  t.false(b.cassettes.isLoaded('support.json'));
  t.is((await b.cassettes.load('support.json')).data.interactions.length, 1);
});
