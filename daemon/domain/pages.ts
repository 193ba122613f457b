// Pages of a list, the words every layer shares: the HTTP layer sends them, services build them,
// the store fills them (store/list-query.ts). Cursor pagination: the cursor is the id of the last
// item of the previous page (starting_after, alias cursor).
import { ApiError } from './errors.js';

export const DEFAULT_PAGE_SIZE = 20;

export interface ListQueryInput {
  limit?: number | undefined;
  starting_after?: string | undefined;
  cursor?: string | undefined;
}

export interface Page<T> {
  items: T[];
  hasMore: boolean;
  totalCount: number;
}

/**
 * An item already serialised to JSON (e.g. an event whose stored text is sent as is), so a list
 * of them is spliced into the body instead of being parsed and serialised again.
 */
export class JsonText {
  constructor(readonly json: string) {}
}

/** Where a cursor object stands in the list's order: its sort value, ties broken by id. */
export interface CursorPosition {
  key: number | string;
  id: string;
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

/** Lists fetch limit + 1 rows; the extra one only says there is more. */
export function toPage<T>(rows: T[], limit: number, totalCount: number): Page<T> {
  const hasMore = rows.length > limit;
  return { items: hasMore ? rows.slice(0, limit) : rows, hasMore, totalCount };
}

/** The same page with each item turned into its view. */
export function mapPage<T, U>(page: Page<T>, view: (item: T) => U): Page<U> {
  return { items: page.items.map(view), hasMore: page.hasMore, totalCount: page.totalCount };
}
