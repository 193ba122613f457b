// Cursor pagination shared by every list: newest first, ties by id descending, the cursor is
// the id of the last item of the previous page (starting_after, alias cursor).
import { ApiError } from './api-error.js';
import type { Page } from './route.js';

export const DEFAULT_PAGE_SIZE = 20;

export interface PageRequest {
  limit: number;
  startingAfter: string | undefined;
}

export interface ListQueryInput {
  limit?: number | undefined;
  starting_after?: string | undefined;
  cursor?: string | undefined;
}

export function pageRequest(query: ListQueryInput): PageRequest {
  if (query.starting_after && query.cursor && query.starting_after !== query.cursor) {
    throw new ApiError(
      'invalid_parameter',
      'starting_after and cursor are the same parameter with two names; send one of them.',
      { param: 'cursor' },
    );
  }
  return {
    limit: query.limit ?? DEFAULT_PAGE_SIZE,
    startingAfter: query.starting_after ?? query.cursor,
  };
}

/** The position of a cursor object in the (created_at DESC, id DESC) order. */
export interface CursorPosition {
  created_at: number;
  id: string;
}

export function unknownCursor(id: string): ApiError {
  return new ApiError(
    'invalid_parameter',
    `The cursor ${id} is not an object of this list. Pass the id of the last item of the previous page.`,
    { param: 'starting_after' },
  );
}

/** Repositories fetch limit + 1 rows; the extra one only says there is more. */
export function toPage<T>(rows: T[], limit: number, totalCount: number): Page<T> {
  const hasMore = rows.length > limit;
  return { items: hasMore ? rows.slice(0, limit) : rows, hasMore, totalCount };
}
