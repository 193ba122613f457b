// The PostgreSQL adapter's worker thread: one `pg` connection, on which it runs each request of
// the calling thread (postgres-db.ts) in turn and posts the answer back. The connection is made
// on the first request and again on the first request after it was lost, so a PostgreSQL
// restart costs the requests made while it is down (they fail as unavailable), nothing more.
//
// Team mode: once asked (a ListenRequest), a second connection LISTENs on the sandbox's channel
// and posts each notification of another daemon on the notices port, as it arrives: PostgreSQL
// pushes them, nothing polls. Lost, it connects again (after 1 s, then up to every 5 s) and
// posts a resync notice, since what was sent meanwhile is gone.
//
// The connection is in pg's pipeline mode: what a request carries before its statement (BEGIN,
// SAVEPOINT, RELEASE, queued writes) is written to the socket with it, and PostgreSQL answers
// them all in one round trip instead of one each.
import { appendFileSync } from 'node:fs';
import { workerData, type MessagePort } from 'node:worker_threads';
import pg, { type Notification, type QueryResult } from 'pg';
import type { Answer, Before, Notice, Query, Request, WorkerConfig } from './protocol.js';

const { config, port, notices } = workerData as {
  config: WorkerConfig;
  port: MessagePort;
  notices: MessagePort;
};
const signal = new Int32Array(config.signal);

/**
 * SVC_STORE_TRACE=<file>: one line per request appended to the file: how many statements it
 * carried (pipelined), a tab, and the head of its last one (the one whose answer was awaited),
 * for bench/store-trips.ts, which counts a daemon's round trips and says what they wait for.
 */
const traceFile = process.env.SVC_STORE_TRACE || undefined;

function trace(request: Request & { op: 'query' | 'exec' }): void {
  const text =
    request.op === 'exec' ? request.text.slice(request.text.lastIndexOf(';') + 1) : request.text;
  const last = text.replace(/\s+/g, ' ').trim().slice(0, 120);
  appendFileSync(traceFile!, `${request.before.length + 1}\t${last}\n`);
}

// Numbers as SQLite gives them: BIGINT (int8), COUNT(*) and SUM (numeric) as JS numbers. The
// schema keeps times in milliseconds and counts: all far below 2^53.
const types = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') => {
    if (oid === 20 || oid === 1700) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
};

let client: pg.Client | undefined;
/** Counts connections made; the caller sees a change as "the previous one was lost". */
let connection = 0;

async function connected(): Promise<pg.Client> {
  if (client) return client;
  const fresh = new pg.Client({
    connectionString: config.url,
    connectionTimeoutMillis: 5000,
    keepAlive: true,
    application_name: 'svc',
    types,
    pipeline: true,
  });
  // A connection that breaks while idle: forget it; the next request connects again.
  fresh.on('error', () => {
    if (client === fresh) client = undefined;
  });
  try {
    await fresh.connect();
    await fresh.query(`SET search_path TO ${pg.escapeIdentifier(config.schema)}`);
  } catch (error) {
    void fresh.end().catch(() => undefined);
    throw error;
  }
  connection += 1;
  client = fresh;
  return fresh;
}

/** Errors that say the server is gone or not taking connections, not that the SQL was wrong. */
function isUnavailable(error: { code?: unknown; message?: unknown }): boolean {
  const code = typeof error.code === 'string' ? error.code : '';
  if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03') {
    return true;
  }
  if (/^E[A-Z]+$/.test(code)) return true; // ECONNREFUSED, ECONNRESET, EPIPE, ETIMEDOUT…
  const message = typeof error.message === 'string' ? error.message : '';
  return /Connection terminated|not queryable|timeout expired|Connection ended/i.test(message);
}

/** Parameters as pg takes them: byte arrays (a Buffer arrives as a Uint8Array) as Buffers. */
function values(params: unknown[]): unknown[] {
  return params.map((value) =>
    value instanceof Uint8Array && !Buffer.isBuffer(value)
      ? Buffer.from(value.buffer, value.byteOffset, value.byteLength)
      : value,
  );
}

/** The listening connection, once asked for; `client` is undefined while it is being made. */
interface Listening {
  channel: string;
  client: pg.Client | undefined;
  retry?: NodeJS.Timeout;
}
let listening: Listening | undefined;

const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 5000;

async function listen(channel: string): Promise<void> {
  if (listening) return;
  const state: Listening = { channel, client: undefined };
  listening = state;
  try {
    await connectListener(state);
  } catch (error) {
    listening = undefined;
    throw error;
  }
}

async function connectListener(state: Listening): Promise<void> {
  const fresh = new pg.Client({
    connectionString: config.url,
    connectionTimeoutMillis: 5000,
    keepAlive: true,
    application_name: 'svc listen',
    types,
  });
  fresh.on('notification', (message: Notification) => {
    // Our own connection's notifications: this daemon has done what they announce.
    if (client && message.processId === (client as unknown as { processID: number }).processID) {
      return;
    }
    if (message.channel !== state.channel || typeof message.payload !== 'string') return;
    post({ kind: 'notice', payload: message.payload });
  });
  const lost = () => {
    if (state.client !== fresh || listening !== state) return;
    state.client = undefined;
    void fresh.end().catch(() => undefined);
    reconnect(state, RETRY_FIRST_MS);
  };
  fresh.on('error', lost);
  fresh.on('end', lost);
  try {
    await fresh.connect();
    await fresh.query(`LISTEN ${pg.escapeIdentifier(state.channel)}`);
  } catch (error) {
    void fresh.end().catch(() => undefined);
    throw error;
  }
  state.client = fresh;
}

function reconnect(state: Listening, delayMs: number): void {
  state.retry = setTimeout(() => {
    if (listening !== state) return;
    connectListener(state).then(
      () => post({ kind: 'resync' }),
      () => reconnect(state, Math.min(delayMs * 2, RETRY_MAX_MS)),
    );
  }, delayMs);
}

function post(notice: Notice): void {
  notices.postMessage(notice);
}

// Parameter types. pg sends every parameter as text of no declared type, and PostgreSQL then
// types it by what is beside it: NULLIF(?, 0) or ? * 1000 make it an int4, which refuses an
// epoch in ms or overflows where SQLite does not (better-sqlite3 binds a number as a double,
// exact to 2^53). So a JS number is declared: an integer as int8 (exact, and what the schema's
// BIGINT columns and LIMIT take), anything else (a fraction, NaN, beyond int8) as float8. Other
// values (text, bytes, null) are left for PostgreSQL to type, as before. Where SQL needs an
// int4 (substr's length), it says CAST(? AS INTEGER), which SQLite reads the same.
const INT8 = 20;
const FLOAT8 = 701;
const UNTYPED = 0;
const INT8_LIMIT = 2 ** 63;

function parameterType(value: unknown): number {
  if (typeof value === 'bigint') return INT8;
  if (typeof value !== 'number') return UNTYPED;
  return Number.isInteger(value) && Math.abs(value) < INT8_LIMIT ? INT8 : FLOAT8;
}

/**
 * A statement is parsed once per connection with the types of its first parameters, so each
 * combination of types gets a prepared statement of its own (a nullable number: two).
 */
const typedNames = new Map<string, string>();

function typedName(name: string, types: number[]): string {
  if (name === '') return '';
  const key = `${name}:${types.join(',')}`;
  let typed = typedNames.get(key);
  if (typed === undefined) {
    typed = `${name}_${typedNames.size + 1}`;
    typedNames.set(key, typed);
  }
  return typed;
}

async function answer(request: Request): Promise<Answer> {
  if (request.op === 'close') {
    const state = listening;
    listening = undefined;
    if (state) {
      clearTimeout(state.retry);
      await state.client?.end().catch(() => undefined);
    }
    await client?.end().catch(() => undefined);
    client = undefined;
    return { ok: true, fields: [], rows: [], changes: 0, connection };
  }
  if (request.op === 'listen') {
    await listen(request.channel);
    return { ok: true, fields: [], rows: [], changes: 0, connection };
  }
  const db = await connected();
  if (traceFile) trace(request);
  // Everything of the request is submitted before any answer is awaited (pipeline mode).
  const before = request.before.length > 0 ? submitBefore(db, request.before) : [];
  const last =
    request.op === 'exec'
      ? (db.query(request.text) as unknown as Promise<QueryResult | QueryResult[]>)
      : db.query(preparedQuery(request));
  const settled = await Promise.allSettled([...before, last]);
  // The first failure is the cause; what ran after it failed for it (an aborted transaction).
  for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
  const results = (settled.at(-1) as PromiseFulfilledResult<QueryResult | QueryResult[]>).value;
  if (request.op === 'exec') {
    // PostgreSQL answers COMMIT of a transaction that a failed statement aborted with ROLLBACK,
    // and no error: the work would read as committed although nothing of it was kept.
    const final = Array.isArray(results) ? results.at(-1) : results;
    if (/COMMIT$/.test(request.text) && final?.command === 'ROLLBACK') {
      throw Object.assign(
        new Error(
          'PostgreSQL rolled the transaction back at its commit: a statement in it had failed, which aborts a PostgreSQL transaction.',
        ),
        { code: '25P02' },
      );
    }
    return { ok: true, fields: [], rows: [], changes: 0, connection };
  }
  const result = results as QueryResult;
  return {
    ok: true,
    fields: result.fields.map((field) => ({ name: field.name, type: field.dataTypeID })),
    rows: result.rows as unknown[][],
    changes: result.rowCount ?? 0,
    connection,
  };
}

/** Submits what goes before a request: runs of simple statements as one simple query each. */
function submitBefore(db: pg.Client, before: Before): Promise<unknown>[] {
  const submitted: Promise<unknown>[] = [];
  let simple: string[] = [];
  const flushSimple = () => {
    if (simple.length === 0) return;
    submitted.push(db.query(simple.join(';\n')));
    simple = [];
  };
  for (const item of before) {
    if (typeof item === 'string') {
      simple.push(item);
    } else {
      flushSimple();
      submitted.push(db.query(preparedQuery(item)));
    }
  }
  flushSimple();
  return submitted;
}

/** A statement with parameters as pg takes it: prepared once per name and parameter types. */
function preparedQuery(query: Query) {
  const parameterTypes = query.values.map(parameterType);
  const name = typedName(query.name, parameterTypes);
  return {
    ...(name ? { name } : {}),
    text: query.text,
    values: values(query.values),
    // pg reads a query's `types` both as the Parse message's parameter types (the array) and
    // as the result's type parsers (getTypeParser): the one object serves as both.
    types: Object.assign(parameterTypes, { getTypeParser: types.getTypeParser }),
    rowMode: 'array' as const,
  };
}

function failure(error: unknown): Answer {
  const { code, message, constraint } = (error ?? {}) as {
    code?: string;
    message?: string;
    constraint?: string;
  };
  const unavailable = isUnavailable({ code, message });
  if (unavailable && client) {
    void client.end().catch(() => undefined);
    client = undefined;
  }
  return {
    ok: false,
    unavailable,
    message: message ?? String(error),
    code,
    constraint,
    connection,
  };
}

/** The request being answered (the caller sends one at a time and waits for its answer). */
let current = 0;
let answered = 0;

/** Answers request `id`, once; an answer of an earlier request, settled late, is dropped. */
function reply(id: number, answer: Answer): void {
  if (id !== current || answered === id) return;
  answered = id;
  try {
    port.postMessage(answer);
  } catch (error) {
    // Something of the answer could not be copied to the caller: it still gets one.
    port.postMessage(failure(error));
  }
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
}

port.on('message', (request: Request) => {
  const id = ++current;
  answer(request).then(
    (done) => reply(id, done),
    (error: unknown) => reply(id, failure(error)),
  );
});

// pg can throw outside any query's promise (in a socket's event, a protocol message it did not
// expect): the request waiting then would never be answered, and the thread die of it. Instead
// the connection is dropped, the waiting request answered as unavailable (the caller's 503),
// and the next request connects again.
function brokenClient(error: unknown): void {
  const broken = client;
  client = undefined;
  void broken?.end().catch(() => undefined);
  const message = error instanceof Error ? error.message : String(error);
  reply(current, {
    ok: false,
    unavailable: true,
    message: `the PostgreSQL client failed (${message}); the next request connects again`,
    code: undefined,
    constraint: undefined,
    connection,
  });
}
process.on('uncaughtException', brokenClient);
process.on('unhandledRejection', brokenClient);

// A thread started again while somebody listens: it listens from the start, and says "resync"
// once it hears, since what was sent meanwhile is gone.
if (config.listen) {
  const state: Listening = { channel: config.listen, client: undefined };
  listening = state;
  connectListener(state).then(
    () => post({ kind: 'resync' }),
    () => reconnect(state, RETRY_FIRST_MS),
  );
}

// Never leave the caller waiting on a thread that has died.
process.on('exit', () => {
  Atomics.store(signal, 0, 2);
  Atomics.notify(signal, 0);
});
