// Key/value settings the daemon keeps across restarts (operator ids, the sandbox clock).
import type { Db } from './db.js';

export class SettingsRepository {
  private readonly getStmt;
  private readonly setStmt;
  private readonly deleteStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare<[string], { value: string }>(
      'SELECT value FROM settings WHERE key = ?',
    );
    this.setStmt = db.prepare(
      'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    );
    this.deleteStmt = db.prepare('DELETE FROM settings WHERE key = ?');
  }

  get(key: string): string | undefined {
    return this.getStmt.get(key)?.value;
  }

  set(key: string, value: string): void {
    this.setStmt.run(key, value);
  }

  delete(key: string): void {
    this.deleteStmt.run(key);
  }
}
