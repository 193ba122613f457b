// The PostgreSQL adapter of the store port (db.ts). The port is synchronous, as better-sqlite3
// is; `pg` is not. So `pg` runs in a worker thread (worker.ts) and each statement here posts
// its request there and blocks this thread on Atomics.wait until the answer is posted back
// (the technique of the synckit package, in the few lines it takes here). A statement costs a
// round trip to PostgreSQL while the daemon's thread waits, as an SQLite statement's I/O does.
//
// Transactions: BEGIN (or SAVEPOINT when nested) is sent with the transaction's first
// statement, and RELEASE with the next one, so they cost no round trip of their own; COMMIT
// does. One transaction at a time on the one connection, as on SQLite's. Writes whose results
// nobody reads (`runLater`, used through store/later-writes.ts) are queued in a transaction and
// sent with its next statement or its COMMIT: the worker pipelines what a request carries
// (pg's pipeline mode), so a transaction of five such writes and a COMMIT is one round trip,
// to the worker and to PostgreSQL, instead of six. Their errors surface at that statement or
// COMMIT, and roll the transaction back as any error does.
//
// Notifications (team mode, db.ts Notifications): NOTIFY on the sandbox's channel, queued in
// the transaction and sent with its COMMIT (no round trip of their own); heard through the
// worker's second, listening connection, posted here on a port of their own.
import {
  MessageChannel,
  receiveMessageOnPort,
  Worker,
  type MessagePort,
} from 'node:worker_threads';
import { workerScript } from '../../platform/worker-script.js';
import {
  RESYNC_TOPIC,
  STORE_KIND,
  type ColumnDefinition,
  type Db,
  type NotificationListener,
  type Notifications,
  type RunResult,
  type Statement,
  type StoreKind,
  type Transaction,
} from '../db.js';
import { StoreUnavailableError } from '../store-errors.js';
import { postgresError } from './errors.js';
import { translatePlaceholders } from './placeholders.js';
import type { Answer, Before, Notice, Request, Rows, WorkerConfig } from './protocol.js';

/** PostgreSQL refuses payloads of 8,000 bytes or more; room left for the topic's framing. */
const MAX_NOTICE_BYTES = 7000;

/**
 * How long a statement may take before the worker thread is taken for hung and restarted. Far
 * past any statement of svc's (lock waits between daemons included): a guard against a thread
 * that never answers, not a query timeout.
 */
const ANSWER_TIMEOUT_MS = 60_000;

/** SQLSTATE of a statement refused because its transaction failed earlier. */
const ABORTED_TRANSACTION = '25P02';

/** PostgreSQL's oid of bytea. */
const BYTEA = 17;

export interface PostgresDbOptions {
  url: string;
  schema: string;
  /** host:port/database, for messages (never the password). */
  where: string;
}

export class PostgresDb implements Db {
  readonly [STORE_KIND]: StoreKind = 'postgres';
  private worker!: Worker;
  private port!: MessagePort;
  private signal!: Int32Array;
  private readonly names = new Map<string, string>();
  private closed = false;
  /** The worker thread exited (seen between requests); the next request starts another. */
  private workerStopped = false;
  /** What the worker thread was last heard to die of (its error, its exit code), for the message. */
  private stoppedBy: string | undefined;
  /** Open transactions and savepoints. */
  private depth = 0;
  /**
   * What to send before the next request, in order: simple statements (BEGIN, SAVEPOINT,
   * RELEASE) and the open transaction's queued writes (runLater).
   */
  private queued: Before = [];
  /** The worker's connection number last seen; a change means the previous one was lost. */
  private connection = 0;
  /** Bumped when a connection is lost: a transaction begun before it is gone. */
  private epoch = 0;
  /** NOTIFY statements of the open transaction, each with the depth it was made at. */
  private notices: { depth: number; sql: string }[] = [];
  private readonly listeners = new Set<NotificationListener>();
  private noticePort!: MessagePort;

  readonly notifications: Notifications = {
    notify: (topic, payload) => this.notify(topic, payload),
    onNotification: (listener) => this.onNotification(listener),
  };

  constructor(readonly options: PostgresDbOptions) {
    this.startWorker();
  }

  /**
   * Starts the worker thread and its ports. Again after the thread stopped or hung (request()):
   * the daemon goes on with a new connection rather than answering every later request with an
   * error. The listening connection comes back with it when somebody listens.
   */
  private startWorker(): void {
    const signal = new SharedArrayBuffer(4);
    this.signal = new Int32Array(signal);
    const channel = new MessageChannel();
    this.port = channel.port1;
    const noticeChannel = new MessageChannel();
    this.noticePort = noticeChannel.port1;
    const listen = this.listeners.size > 0 ? this.options.schema : undefined;
    const config: WorkerConfig = { ...this.options, signal, ...(listen ? { listen } : {}) };
    const { script, eval: isEval } = workerScript('worker', import.meta.url);
    this.worker = new Worker(script, {
      eval: isEval,
      // The thread's name in /proc (`svc-postgres`), so its CPU can be told from the main thread's.
      name: 'svc-postgres',
      workerData: { config, port: channel.port2, notices: noticeChannel.port2 },
      transferList: [channel.port2, noticeChannel.port2],
    });
    // What the thread dies of is answered as the store being unavailable (request()), and it is
    // started again: its 'error' must not end the daemon (an EventEmitter's unheard 'error' throws),
    // and is kept for the message that says it was restarted.
    const worker = this.worker;
    worker.on('error', (error) => {
      if (this.worker === worker) this.stoppedBy = error.message;
    });
    // Stopped between requests (heard here only then: a request blocks this thread): the next
    // request starts a new one instead of waiting on it.
    worker.on('exit', (code) => {
      if (this.worker !== worker) return;
      this.workerStopped = true;
      this.stoppedBy = this.stoppedBy
        ? `${this.stoppedBy}, exit code ${code}`
        : `exit code ${code}`;
    });
    // The worker is only waited on synchronously: it must not keep the process alive.
    this.worker.unref();
    this.port.unref();
    this.noticePort.on('message', (notice: Notice) => this.heard(notice));
    if (!listen) this.noticePort.unref();
  }

  /**
   * The thread stopped or hangs: a new one, on a new connection (what was open is lost).
   * Answers the error the request that found it fails with (503).
   */
  private restartWorker(why: 'stopped' | 'hung'): StoreUnavailableError {
    // Not heard yet when the thread died during this request (its events wait for this thread).
    const stoppedBy = this.stoppedBy ? ` (${this.stoppedBy})` : '';
    this.stoppedBy = undefined;
    void this.worker.terminate();
    this.port.close();
    this.noticePort.close();
    this.loseTransaction();
    this.connection = 0;
    this.workerStopped = false;
    this.startWorker();
    return new StoreUnavailableError(
      this.options.where,
      why === 'hung'
        ? `the adapter's worker thread did not answer in ${ANSWER_TIMEOUT_MS / 1000} s; it was restarted`
        : `the adapter's worker thread stopped${stoppedBy}; it was restarted`,
    );
  }

  get open(): boolean {
    return !this.closed;
  }

  get inTransaction(): boolean {
    return this.depth > 0;
  }

  prepare<BindParameters extends unknown[] | object = unknown[], Result = unknown>(
    source: string,
  ): BindParameters extends unknown[]
    ? Statement<BindParameters, Result>
    : Statement<[BindParameters], Result> {
    const { text, names } = translatePlaceholders(source);
    let name = this.names.get(text);
    if (name === undefined) {
      name = `svc_${this.names.size + 1}`;
      this.names.set(text, name);
    }
    return new PostgresStatement(this, name, text, names) as never;
  }

  exec(source: string): this {
    this.request({ op: 'exec', before: this.takeQueued(), text: source });
    return this;
  }

  transaction<F extends (...params: never[]) => unknown>(fn: F): Transaction<F> {
    const run = (...params: Parameters<F>): unknown => {
      const epoch = this.epoch;
      const level = this.depth;
      const savepoint = level === 0 ? undefined : `svc_savepoint_${level}`;
      this.queued.push(savepoint ? `SAVEPOINT ${savepoint}` : 'BEGIN');
      this.depth = level + 1;
      let result: unknown;
      try {
        result = fn(...params);
      } catch (error) {
        this.unwind(epoch, level, savepoint);
        throw error;
      }
      if (this.epoch !== epoch) throw this.lost();
      this.depth = level;
      if (savepoint) {
        // Sent with the next statement (or the COMMIT).
        this.queued.push(`RELEASE SAVEPOINT ${savepoint}`);
        // Its notifications are the enclosing transaction's now.
        for (const notice of this.notices) if (notice.depth > level) notice.depth = level;
      } else if (
        this.queued[0] === 'BEGIN' &&
        this.queued.every((item) => typeof item === 'string')
      ) {
        // BEGIN not sent yet and no write queued: nothing was run in it, nothing to commit.
        this.queued = [];
        const notices = this.takeNotices();
        if (notices.length > 0) this.request({ op: 'exec', before: [], text: notices.join(';\n') });
      } else {
        // COMMIT goes as a statement of its own after the notices: were it in one text with
        // them, a failed write before would abort the transaction, the notices' statement fail
        // and the rest of its text, COMMIT included, be skipped, leaving the connection in an
        // aborted transaction that failed every later statement (25P02). On its own, COMMIT
        // of a failed transaction ends it (PostgreSQL answers ROLLBACK; worker.ts throws).
        const notices = this.takeNotices();
        this.request({
          op: 'exec',
          before: [...this.takeQueued(), ...notices],
          text: 'COMMIT',
        });
      }
      return result;
    };
    return run as unknown as Transaction<F>;
  }

  close(): this {
    if (this.closed) return this;
    this.queued = [];
    this.notices = [];
    this.listeners.clear();
    this.noticePort.close();
    try {
      if (!this.workerStopped) this.request({ op: 'close' });
    } finally {
      this.closed = true;
      void this.worker.terminate();
    }
    return this;
  }

  /** Runs one statement (translated) and answers its rows. */
  query(name: string, text: string, values: unknown[]): Rows {
    return this.request({ op: 'query', before: this.takeQueued(), name, text, values });
  }

  /**
   * A write whose result is not read: inside a transaction, queued and sent with the next
   * request (a statement, or the COMMIT); outside one, run at once.
   */
  runLater(name: string, text: string, values: unknown[]): void {
    if (this.depth === 0) this.query(name, text, values);
    else this.queued.push({ name, text, values });
  }

  private notify(topic: string, payload: string): void {
    if (topic.includes('\t') || topic.length === 0) {
      throw new TypeError(
        `A notification's topic is a word without tabs: ${JSON.stringify(topic)}`,
      );
    }
    const message = `${topic}\t${payload}`;
    if (Buffer.byteLength(message) > MAX_NOTICE_BYTES || message.includes('\0')) {
      throw new RangeError(
        `A notification is at most ${MAX_NOTICE_BYTES} bytes and holds no NUL: send an id to read, not the row.`,
      );
    }
    const sql = `SELECT pg_notify(${literal(this.options.schema)}, ${literal(message)})`;
    if (this.depth > 0) this.notices.push({ depth: this.depth, sql });
    else this.request({ op: 'exec', before: this.takeQueued(), text: sql });
  }

  private onNotification(listener: NotificationListener): () => void {
    // The first listener opens the listening connection (and waits for it: heard from now on).
    if (this.listeners.size === 0) this.request({ op: 'listen', channel: this.options.schema });
    this.listeners.add(listener);
    // Someone listens: the process stays up to hear (close() or the last unsubscribe ends it).
    if (this.listeners.size === 1) this.noticePort.ref();
    return () => {
      if (this.listeners.delete(listener) && this.listeners.size === 0) this.noticePort.unref();
    };
  }

  private heard(notice: Notice): void {
    let topic = RESYNC_TOPIC;
    let payload = '';
    if (notice.kind === 'notice') {
      const tab = notice.payload.indexOf('\t');
      if (tab <= 0) return; // Not one of ours.
      topic = notice.payload.slice(0, tab);
      payload = notice.payload.slice(tab + 1);
    }
    for (const listener of this.listeners) listener(topic, payload);
  }

  private takeNotices(): string[] {
    const notices = this.notices.map((notice) => notice.sql);
    this.notices = [];
    return notices;
  }

  private takeQueued(): Before {
    const queued = this.queued;
    this.queued = [];
    return queued;
  }

  /** A transaction (or savepoint) at `level` threw: undo it, unless its connection is gone. */
  private unwind(epoch: number, level: number, savepoint: string | undefined): void {
    this.depth = level;
    // What it announced did not happen.
    this.notices = this.notices.filter((notice) => notice.depth <= level);
    if (this.epoch !== epoch) return;
    // Never sent: nothing to undo on the server (its queued writes are dropped with it).
    const opener = savepoint ? `SAVEPOINT ${savepoint}` : 'BEGIN';
    const unsent = this.queued.indexOf(opener);
    if (unsent >= 0) {
      this.queued = this.queued.slice(0, unsent);
      return;
    }
    const undo = savepoint
      ? `ROLLBACK TO SAVEPOINT ${savepoint}; RELEASE SAVEPOINT ${savepoint}`
      : 'ROLLBACK';
    // All queued came after the opener, which was sent: this level's (or deeper), undone.
    this.queued = [];
    try {
      this.request({ op: 'exec', before: [], text: undo });
    } catch (error) {
      // Lost meanwhile: the server rolled it back. The error thrown is the work's own.
      if (!(error instanceof StoreUnavailableError)) throw error;
    }
  }

  private lost(): StoreUnavailableError {
    return new StoreUnavailableError(
      this.options.where,
      'the connection was lost during the transaction; it was rolled back',
    );
  }

  private request(request: Request & { op: 'query' }): Rows;
  private request(request: Request): Rows;
  private request(request: Request): Rows {
    if (this.closed) throw new TypeError('The database connection is not open');
    if (this.workerStopped && request.op !== 'close') throw this.restartWorker('stopped');
    Atomics.store(this.signal, 0, 0);
    this.port.postMessage(request);
    const waited = Atomics.wait(this.signal, 0, 0, ANSWER_TIMEOUT_MS);
    const message = receiveMessageOnPort(this.port);
    if (!message) {
      // The thread died (out of memory, or pg threw where worker.ts could not answer) or hangs
      // (a query whose promise never settles): this request fails as unavailable (503), and the
      // next one runs on a new thread and connection instead of failing forever.
      if (request.op === 'close') {
        throw new StoreUnavailableError(this.options.where, "the adapter's worker thread stopped");
      }
      throw this.restartWorker(waited === 'timed-out' ? 'hung' : 'stopped');
    }
    const answer = message.message as Answer;
    if (answer.connection !== this.connection) {
      // A new connection: whatever transaction the old one had is gone, unless this very request
      // began it (its BEGIN went with it, on the new connection: the first transaction after an
      // outage, e.g. a request's rate-limit count, is whole, not lost).
      if (this.connection !== 0 && this.depth > 0 && !beginsTransaction(request)) {
        this.loseTransaction();
      }
      this.connection = answer.connection;
    }
    if (answer.ok) return answer;
    if (answer.unavailable) {
      if (this.depth > 0) this.loseTransaction();
      throw new StoreUnavailableError(this.options.where, answer.message);
    }
    if (answer.code === ABORTED_TRANSACTION && this.depth === 0 && request.op !== 'close') {
      // The connection is in a failed transaction that nothing here has open: end it, or every
      // later statement fails the same way. (COMMIT is always sent on its own for this, but a
      // transaction left open must cost one failed request, never the daemon.)
      this.request({ op: 'exec', before: [], text: 'ROLLBACK' });
    }
    throw postgresError(answer);
  }

  private loseTransaction(): void {
    this.epoch += 1;
    this.depth = 0;
    this.queued = [];
    this.notices = [];
  }
}

/**
 * A string literal that reads the same whatever standard_conforming_strings says (E'…', with
 * backslashes and quotes escaped): the text is data.
 */
function literal(text: string): string {
  return `E'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

type Mode = 'object' | 'raw' | 'pluck';

class PostgresStatement implements Statement<unknown[], unknown> {
  private mode: Mode = 'object';
  private fields: ColumnDefinition[] | undefined;

  constructor(
    private readonly db: PostgresDb,
    private readonly name: string,
    private readonly text: string,
    private readonly names: string[],
  ) {}

  run(...params: unknown[]): RunResult {
    return { changes: this.execute(params).changes, lastInsertRowid: 0 };
  }

  /** run() whose result is not read: in a transaction, sent with its next request. */
  runLater(...params: unknown[]): void {
    this.db.runLater(this.name, this.text, this.bind(params));
  }

  get(...params: unknown[]): unknown {
    const answer = this.execute(params);
    return answer.rows.length === 0 ? undefined : this.shape(answer, answer.rows[0]!);
  }

  all(...params: unknown[]): unknown[] {
    const answer = this.execute(params);
    return answer.rows.map((row) => this.shape(answer, row));
  }

  iterate(...params: unknown[]): IterableIterator<unknown> {
    return this.all(...params)[Symbol.iterator]();
  }

  pluck(toggleState = true): this {
    this.mode = toggleState ? 'pluck' : 'object';
    return this;
  }

  raw(toggleState = true): this {
    this.mode = toggleState ? 'raw' : 'object';
    return this;
  }

  columns(): ColumnDefinition[] {
    if (!this.fields) {
      throw new TypeError('PostgreSQL statements know their columns once they have run.');
    }
    return this.fields;
  }

  private execute(params: unknown[]): Rows {
    const answer = this.db.query(this.name, this.text, this.bind(params));
    this.fields ??= answer.fields.map((field) => ({ name: field.name }));
    return answer;
  }

  /** `?` parameters as given; `@name` ones from the one object given. */
  private bind(params: unknown[]): unknown[] {
    if (this.names.length === 0) return params;
    const object = params[0] as Record<string, unknown> | undefined;
    if (params.length !== 1 || typeof object !== 'object' || object === null) {
      throw new TypeError('This statement takes its parameters by name: give one object.');
    }
    return this.names.map((name) => {
      const value = object[name];
      if (value === undefined) throw new RangeError(`Missing named parameter "${name}"`);
      return value;
    });
  }

  private shape(answer: Rows, values: unknown[]): unknown {
    const { fields } = answer;
    for (let index = 0; index < fields.length; index += 1) {
      const value = values[index];
      if (fields[index]!.type === BYTEA && value instanceof Uint8Array) {
        values[index] = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      }
    }
    if (this.mode === 'raw') return values;
    if (this.mode === 'pluck') return values[0];
    const row: Record<string, unknown> = {};
    for (let index = 0; index < fields.length; index += 1) {
      row[fields[index]!.name] = values[index];
    }
    return row;
  }
}

/** Whether a request carries the BEGIN of the transaction it runs in (it is sent first). */
function beginsTransaction(request: Request): boolean {
  if (request.op !== 'query' && request.op !== 'exec') return false;
  const first = request.before[0];
  if (first !== undefined) return first === 'BEGIN';
  return request.op === 'exec' && request.text.startsWith('BEGIN');
}
