// Cursor pagination shared by every list: newest first, ties by id descending, the cursor is
// the id of the last item of the previous page (starting_after, alias cursor).
import { ApiError } from './api-error.js';
import type { Page } from './route.js';

export const DEFAULT_PAGE_SIZE = 20;

export interface ListQueryInput {
  limit?: number | undefined;
  starting_after?: string | undefined;
  cursor?: string | undefined;
}

export interface PageRequest {
  limit: number;
  /** Where the page starts, when a cursor was sent. */
  cursor: CursorPosition | undefined;
}

/**
 * Reads limit and the cursor (starting_after, alias cursor) of a list query; `position` finds
 * the cursor object in the list (undefined when it is not one of its objects).
 */
export function pageRequest(
  query: ListQueryInput,
  position: (id: string) => CursorPosition | undefined,
): PageRequest {
  if (query.starting_after && query.cursor && query.starting_after !== query.cursor) {
    throw new ApiError(
      'invalid_parameter',
      'starting_after and cursor are the same parameter with two names; send one of them.',
      { param: 'cursor' },
    );
  }
  const id = query.starting_after ?? query.cursor;
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  if (!id) return { limit, cursor: undefined };
  const cursor = position(id);
  if (!cursor) {
    throw new ApiError(
      'invalid_parameter',
      `The cursor ${id} is not an object of this list. Pass the id of the last item of the previous page.`,
      { param: query.starting_after ? 'starting_after' : 'cursor' },
    );
  }
  return { limit, cursor };
}

/** The position of a cursor object in the (created_at DESC, id DESC) order. */
export interface CursorPosition {
  created_at: number;
  id: string;
}

/** Repositories fetch limit + 1 rows; the extra one only says there is more. */
export function toPage<T>(rows: T[], limit: number, totalCount: number): Page<T> {
  const hasMore = rows.length > limit;
  return { items: hasMore ? rows.slice(0, limit) : rows, hasMore, totalCount };
}
