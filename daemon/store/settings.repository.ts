// Key/value settings the daemon keeps across restarts (operator ids, the sandbox clock).
import type { Db } from './db.js';

export class SettingsRepository {
  private readonly getStmt;
  private readonly setStmt;
  private readonly deleteStmt;
  private readonly writeAll;

  constructor(db: Db) {
    this.getStmt = db.prepare<[string], { value: string }>(
      'SELECT value FROM settings WHERE key = ?',
    );
    this.setStmt = db.prepare(
      'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    );
    this.deleteStmt = db.prepare('DELETE FROM settings WHERE key = ?');
    this.writeAll = db.transaction(
      (entries: Record<string, string | null>, alsoDo: (() => void) | undefined) => {
        for (const [key, value] of Object.entries(entries)) {
          if (value === null) this.delete(key);
          else this.set(key, value);
        }
        alsoDo?.();
      },
    );
  }

  /**
   * Sets (a string) or deletes (null) several settings in one transaction: all or none.
   * `alsoDo` runs in that transaction too (the clock tells the other daemons, team mode).
   */
  write(entries: Record<string, string | null>, alsoDo?: () => void): void {
    this.writeAll(entries, alsoDo);
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
