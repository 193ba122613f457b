// E2e helpers for the REST API and the control channel: one JSON caller with default
// credentials, one check of the spec's error body, one raw tRPC call.
import type { ExecutionContext } from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestDaemon } from './daemon.js';

export type Answer = Awaited<ReturnType<TestDaemon['request']>>;

export interface Auth {
  key?: string;
  tenant?: string;
}

/**
 * A JSON caller for a daemon: `call(method, path, body?, auth?)` with the key and tenant of
 * `defaults` unless `auth` names others. `defaults` is read at each call, so it may return
 * values that a test.before() sets.
 */
export function apiCaller(defaults: () => Auth & { daemon: TestDaemon }) {
  return (method: string, path: string, body?: unknown, auth: Auth = {}): Promise<Answer> => {
    const { daemon, key, tenant } = defaults();
    const chosen: Auth = {};
    const useKey = auth.key ?? key;
    const useTenant = auth.tenant ?? tenant;
    if (useKey !== undefined) chosen.key = useKey;
    if (useTenant !== undefined) chosen.tenant = useTenant;
    return daemon.callJson(method, path, body, chosen);
  };
}

/**
 * Asserts an error answer in the spec's form: the status, the code, a message, the param when
 * given, and error.request_id equal to the X-Request-Id header. Returns the error object.
 */
export function assertError(
  t: ExecutionContext,
  answer: Answer,
  status: number,
  code: string,
  param?: string,
): Record<string, any> {
  t.is(answer.status, status, `status (body: ${answer.text})`);
  t.is(answer.body?.error?.code, code, answer.text);
  t.is(typeof answer.body?.error?.message, 'string', answer.text);
  if (param !== undefined) t.is(answer.body?.error?.param, param, answer.text);
  t.is(answer.body?.error?.request_id, answer.headers.get('x-request-id'), answer.text);
  return (answer.body?.error ?? {}) as Record<string, any>;
}

export interface TrpcAnswer<T = any> {
  status: number;
  /** `result.data` of a successful call. */
  data: T | undefined;
  /** The tRPC error of a failed call ({message, code, data: {code, httpStatus, ...}}). */
  error: { message: string; code: number; data?: Record<string, any> } | undefined;
  text: string;
}

/** Where the control channel is: a test daemon, or a URL and its control token. */
export type ControlTarget = { url: string; dataDir: string } | { url: string; token: string };

/**
 * One raw call to the control channel (POST for mutations, GET for queries), authorised with
 * the target's control token unless `token` is given (null sends none).
 */
export async function trpc<T = any>(
  target: ControlTarget,
  procedure: string,
  input?: unknown,
  options: { method?: 'GET' | 'POST'; token?: string | null } = {},
): Promise<TrpcAnswer<T>> {
  const method = options.method ?? (input === undefined ? 'GET' : 'POST');
  const token = options.token === undefined ? controlToken(target) : (options.token ?? undefined);
  const headers: Record<string, string> = {};
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  let url = `${target.url}/trpc/${procedure}`;
  let body: string | undefined;
  if (method === 'GET') {
    if (input !== undefined) url += `?input=${encodeURIComponent(JSON.stringify(input))}`;
  } else {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(input ?? null);
  }
  const response = await fetch(url, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  let parsed: { result?: { data: T }; error?: TrpcAnswer['error'] } = {};
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: left to the caller through text
  }
  return { status: response.status, data: parsed.result?.data, error: parsed.error, text };
}

/**
 * A control-channel call that must succeed: its data, or an error naming the procedure. Sent
 * as a query (GET) without input and as a mutation (POST) with one, unless `kind` says which:
 * a query with input (`faults.list`, `agents.stubs.list`) or a mutation without one
 * (`clock.reset`, `clock.freeze`).
 */
export async function control<T = any>(
  target: ControlTarget,
  procedure: string,
  input?: unknown,
  kind?: 'query' | 'mutation',
): Promise<T> {
  const answer = await trpc<T>(
    target,
    procedure,
    input,
    kind === undefined ? {} : { method: kind === 'query' ? 'GET' : 'POST' },
  );
  if (answer.status !== 200 || answer.data === undefined) {
    throw new Error(`${procedure}: ${answer.status} ${answer.text}`);
  }
  return answer.data;
}

export function controlToken(target: ControlTarget): string {
  return 'token' in target
    ? target.token
    : readFileSync(join(target.dataDir, 'control-token'), 'utf8').trim();
}

/**
 * A first page of `limit` items out of more, in the spec's list form: has_more (top level and
 * in meta), the next cursor at the last item, and total_count when given.
 */
export function assertFirstPage(
  t: ExecutionContext,
  body: { data: { id: string }[]; has_more: boolean; total_count?: number; meta: any },
  limit: number,
  total?: number,
): void {
  t.is(body.data.length, limit);
  t.true(body.has_more);
  t.true(body.meta.has_more);
  t.is(body.meta.next_cursor, body.data[limit - 1]!.id);
  if (total !== undefined) t.is(body.total_count, total);
}

/** POSTs `body` to a collection with `call`; the created object (anything but 201 throws). */
export async function createdWith<T = any>(
  call: ReturnType<typeof apiCaller>,
  path: string,
  body: Record<string, unknown>,
  auth: Auth = {},
): Promise<T> {
  const answer = await call('POST', path, body, auth);
  if (answer.status !== 201) throw new Error(`POST ${path}: ${answer.status} ${answer.text}`);
  return answer.body.data as T;
}
