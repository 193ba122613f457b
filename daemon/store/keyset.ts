// SQL for keyset pagination in (created_at DESC, id DESC) order, used by repositories.
import type { CursorPosition } from '../http/pagination.js';

/** A WHERE fragment and its parameters selecting rows after the cursor ("1" when none). */
export function afterCursor(cursor: CursorPosition | undefined): {
  sql: string;
  params: (string | number)[];
} {
  if (!cursor) return { sql: '1', params: [] };
  return {
    sql: '(created_at < ? OR (created_at = ? AND id < ?))',
    params: [cursor.created_at, cursor.created_at, cursor.id],
  };
}
