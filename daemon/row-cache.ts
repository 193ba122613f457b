// Rows read on every request about them and written rarely (agents, workflows, workflow
// versions): a repository keeps them here until it writes them. A cached row is the same object
// on every read, so callers must not mutate it.

export class RowCache<Row> {
  private readonly rows = new Map<string, Row>();

  /** The cached row, else the one `load` reads (kept when there is one). */
  get(key: string, load: () => Row | undefined): Row | undefined {
    let row = this.rows.get(key);
    if (!row) {
      row = load();
      if (row) this.rows.set(key, row);
    }
    return row;
  }

  /** Drops the row: the next read loads it again (call it before or after writing it). */
  forget(key: string): void {
    this.rows.delete(key);
  }
}
