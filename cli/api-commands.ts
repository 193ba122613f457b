// The two shapes most REST commands share: one call whose `data` is printed (get, delete,
// deploy, retry...), and a list with filters and a page (--limit, --starting-after) printed as a
// table. With --json both print what the API answered, as it is.
import type { Query, RequestInit } from '../shared/api-client.js';
import {
  command,
  type CommandSpec,
  type Options,
  type OptionSpec,
  type OptionValues,
} from './command.js';
import { chalkStderr, table } from './output.js';

/** An API path from its segments, each URL-encoded: apiPath('agents', id, 'knowledge'). */
export function apiPath(...segments: string[]): string {
  return `/${segments.map(encodeURIComponent).join('/')}`;
}

/** The page options of a list; declare them after the filters. */
export const PAGE_OPTIONS = [
  { flags: '--limit <n>', description: 'page size, 1-100' },
  { flags: '--starting-after <id>', description: 'cursor' },
] as const;

interface Page<T> {
  data: T[];
  has_more: boolean;
  meta: { next_cursor: string | null };
}

export interface ListCommandSpec<Os extends readonly OptionSpec[], T> extends Omit<
  CommandSpec<Os>,
  'run'
> {
  /** The list's path under /v1, for the command's arguments. */
  endpoint(args: string[]): string;
  /** The filters' query parameters; --limit and --starting-after are sent when declared. */
  query?(options: OptionValues<Os>): Query;
  columns: string[];
  row(item: T): string[];
  /** Under a page that has more, print the option that fetches the next one. */
  nextPageHint?: boolean;
  /** What to do next, when the page calls for it: an svc command, printed on stderr. */
  hint?(items: T[], args: string[]): string | undefined;
}

export function listCommand<const Os extends readonly OptionSpec[], T>({
  endpoint,
  query,
  columns,
  row,
  nextPageHint,
  hint,
  ...spec
}: ListCommandSpec<Os, T>): CommandSpec {
  return command<Os>({
    ...spec,
    async run(ctx, args, options) {
      const page = options as Options;
      const body = await (
        await ctx.api()
      ).request<Page<T>>('GET', endpoint(args), {
        query: {
          ...query?.(options),
          limit: page.limit as string | undefined,
          starting_after: page.startingAfter as string | undefined,
        },
      });
      ctx.out.result(body, () => table(columns, body.data.map(row)));
      // A hint, not data: on stderr, so the table alone goes down a pipe.
      if (nextPageHint && body.has_more && !ctx.out.json)
        ctx.out.note(chalkStderr.dim(`more: --starting-after ${body.meta.next_cursor}`));
      const next = hint?.(body.data, args);
      if (next && !ctx.out.json) ctx.out.note(next);
    },
  });
}

export interface ApiCommandSpec<Os extends readonly OptionSpec[], T> extends Omit<
  CommandSpec<Os>,
  'run'
> {
  /** The HTTP method; GET by default. */
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The path under /v1, for the command's arguments. */
  endpoint(args: string[]): string;
  /** The request body (or query), from the arguments and options. */
  request?(args: string[], options: OptionValues<Os>): RequestInit | Promise<RequestInit>;
  /** The human rendering of the answer's data. */
  print(data: T): string;
  /** What to do next, when the answer calls for it: an svc command, printed on stderr. */
  hint?(data: T, args: string[]): string | undefined;
}

export function apiCommand<const Os extends readonly OptionSpec[], T>({
  method = 'GET',
  endpoint,
  request,
  print,
  hint,
  ...spec
}: ApiCommandSpec<Os, T>): CommandSpec {
  return command<Os>({
    ...spec,
    async run(ctx, args, options) {
      const data = await (
        await ctx.api()
      ).data<T>(method, endpoint(args), await request?.(args, options));
      ctx.out.result(data, () => print(data));
      const next = hint?.(data, args);
      if (next) ctx.out.note(next);
    },
  });
}
