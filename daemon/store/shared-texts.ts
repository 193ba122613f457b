// Large texts stored once, by content (shared_texts, migration 25): a row that holds a long text
// keeps its SHA-256 instead, and the text is written the first time it is seen. A webhook body
// that a 50-branch parallel step hands to 50 agent steps is one row here, not 50 copies (issue
// 51: one 900 KB hook grew the store by 46 MB).
//
// A text is written in the caller's transaction, and only after looking for it in the store:
// what the store holds is the truth, never a cache (a group commit that rolls back and runs its
// changes again must write the text again, or a row would refer to nothing). The one thing kept
// in memory is the digest of the last text hashed, since the 50 steps of a fan-out hand over the
// same string one after the other: hashing 900 KB costs about a millisecond.
import { createHash } from 'node:crypto';
import type { Db } from './db.js';

/** Texts at least this long are stored once by content; shorter ones stay in their row. */
export const SHARED_TEXT_MIN_CHARS = 4096;

export class SharedTexts {
  private readonly findStmt;
  private readonly insertStmt;
  private readonly bodyStmt;
  private last: { text: string; digest: string } | undefined;

  constructor(db: Db) {
    this.findStmt = db
      .prepare<[string], number>('SELECT 1 FROM shared_texts WHERE digest = ?')
      .pluck();
    this.insertStmt = db.prepare<[string, string, number]>(
      'INSERT INTO shared_texts (digest, body, created_at) VALUES (?, ?, ?)',
    );
    this.bodyStmt = db
      .prepare<[string], string>('SELECT body FROM shared_texts WHERE digest = ?')
      .pluck();
  }

  /** Whether a text this long is stored once by content (else it stays in its row). */
  static shares(text: string): boolean {
    return text.length >= SHARED_TEXT_MIN_CHARS;
  }

  /** Stores `text` unless the store has it already (inside the caller's transaction); its digest. */
  put(text: string, now: number): string {
    const digest = this.digestOf(text);
    if (this.findStmt.get(digest) === undefined) this.insertStmt.run(digest, text, now);
    return digest;
  }

  /** The text of a digest ('' if the store lacks it: a snapshot imported without it). */
  get(digest: string): string {
    return this.bodyStmt.get(digest) ?? '';
  }

  private digestOf(text: string): string {
    if (this.last?.text === text) return this.last.digest;
    const digest = createHash('sha256').update(text).digest('hex');
    this.last = { text, digest };
    return digest;
  }
}
