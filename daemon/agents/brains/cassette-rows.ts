// Cassettes as rows of the sandbox's store (team mode, migration 030): every daemon of the
// sandbox records into and replays from the same cassette, whichever the load balancer picked.
// A row holds the cassette's JSON document as a file would, and is read with the same bounds
// (16 MiB, 64 levels, the zod schema: it may come from a snapshot, so it is untrusted too).
//
// How a cassette gets there: recorded through any daemon (svc agents record, record_missing);
// loaded from a file (svc agents cassette load FILE, which replaces the stored one); or, for a
// name the store does not hold, taken in from the daemon's cassette folder the first time it is
// used there (a file recorded before the sandbox was shared, or given by a colleague): from
// then on every daemon answers from the stored copy, and the file is no longer read.
//
// Recording reads, merges and writes in one transaction that locks the row, so two daemons
// recording into one cassette at once keep both their interactions (the same request
// recorded twice keeps the later answer). A daemon that changed a cassette tells the others
// ('rows' notice with the commit), which drop their loaded copy and read it again when next
// asked.
import type { Db } from '../../store/db.js';
import { byteLength, forUpdate } from '../../store/dialect.js';
import type { TeamNotices } from '../../store/team-notices.js';
import {
  MAX_CASSETTE_BYTES,
  emptyCassette,
  parseCassette,
  tooLarge,
  withInteraction,
  type CassetteData,
  type CassetteName,
  type Interaction,
} from './cassette-format.js';
import type { CassetteFiles } from './cassette-files.js';

/** The name of the cassettes' entries in 'rows' notices (store/team-cache.ts's format). */
const NOTICE = 'cassettes';

export class CassetteRows {
  readonly place = 'store' as const;
  private readonly statements;

  constructor(
    private readonly db: Db,
    private readonly notices: Pick<TeamNotices, 'notify' | 'on' | 'onResync'>,
    /** The daemon's cassette folder, whose files are taken in when the store lacks them. */
    private readonly files: CassetteFiles,
    private readonly now: () => number,
  ) {
    const bytes = byteLength(db, 'data');
    this.statements = {
      // The size first, the text only within the bound: an oversized row is never transferred.
      read: db.prepare<[number, string], { bytes: number | string; data: string | null }>(
        `SELECT ${bytes} AS bytes, CASE WHEN ${bytes} <= ? THEN data END AS data
           FROM cassettes WHERE name = ?`,
      ),
      locked: db.prepare<[number, string], { bytes: number | string; data: string | null }>(
        `SELECT ${bytes} AS bytes, CASE WHEN ${bytes} <= ? THEN data END AS data
           FROM cassettes WHERE name = ? ${forUpdate(db)}`,
      ),
      insertIfAbsent: db.prepare<[string, string, number]>(
        'INSERT INTO cassettes (name, data, updated_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING',
      ),
      put: db.prepare<[string, string, number]>(
        `INSERT INTO cassettes (name, data, updated_at) VALUES (?, ?, ?)
           ON CONFLICT (name) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`,
      ),
    };
  }

  /** Hears the cassettes other daemons changed (a key), or that any may have (undefined). */
  onChange(listener: (key: string | undefined) => void): void {
    this.notices.on('rows', (payload) => {
      if (payload.startsWith(`${NOTICE} `)) listener(payload.slice(NOTICE.length + 1));
    });
    this.notices.onResync(() => listener(undefined));
  }

  /**
   * The stored cassette's text; else the folder's file of that name, taken into the store
   * (once valid: a malformed file is refused as a file, and not stored); else undefined.
   */
  async read(id: CassetteName): Promise<string | undefined> {
    const stored = this.stored(id, this.statements.read);
    if (stored !== undefined) return stored;
    const text = await this.files.read(id);
    if (text === undefined) return undefined;
    parseCassette(id.name, text, 'folder');
    this.db.transaction(() => {
      if (this.statements.insertIfAbsent.run(id.key, text, this.now()).changes > 0)
        this.changed(id);
    })();
    // What the store holds now: this file, or the copy another daemon took in or recorded first.
    return this.stored(id, this.statements.read);
  }

  /**
   * Adds the interaction to the cassette as stored now (not `_current`, this daemon's copy:
   * another daemon may have recorded since), in one transaction that locks the row.
   */
  async record(
    id: CassetteName,
    _current: CassetteData,
    interaction: Interaction,
  ): Promise<CassetteData> {
    // A cassette not stored yet starts from the folder's file, if there is one.
    await this.read(id);
    return this.db.transaction(() => {
      this.statements.insertIfAbsent.run(id.key, JSON.stringify(emptyCassette()), this.now());
      const text = this.stored(id, this.statements.locked)!;
      const data = withInteraction(parseCassette(id.name, text, 'store'), interaction);
      this.write(id, data);
      return data;
    })();
  }

  /** Stores `data` as the cassette `id`, replacing what was stored (svc agents cassette load). */
  async replace(id: CassetteName, data: CassetteData): Promise<CassetteData> {
    this.db.transaction(() => this.write(id, data))();
    return data;
  }

  private write(id: CassetteName, data: CassetteData): void {
    const text = JSON.stringify(data, null, 2);
    const bytes = Buffer.byteLength(text);
    if (bytes > MAX_CASSETTE_BYTES) throw tooLarge(id.name, bytes, 'store');
    this.statements.put.run(id.key, text, this.now());
    this.changed(id);
  }

  /** The row's text, refused past the size bound; undefined when there is no row. */
  private stored(id: CassetteName, statement: typeof this.statements.read): string | undefined {
    const row = statement.get(MAX_CASSETTE_BYTES, id.key);
    if (!row) return undefined;
    if (row.data === null) throw tooLarge(id.name, Number(row.bytes), 'store');
    return row.data;
  }

  /** Inside the transaction: the others hear of it once it is committed. */
  private changed(id: CassetteName): void {
    this.notices.notify('rows', `${NOTICE} ${id.key}`);
  }
}
