// What the PostgreSQL adapter's calling thread and its worker (worker.ts) say to each other.
// Requests go over a MessagePort; each answer is posted back on it and signalled through the
// shared Int32Array, on which the caller waits (Atomics.wait) before reading it synchronously
// (receiveMessageOnPort).

export interface WorkerConfig {
  /** postgres://… (the worker connects with it; never logged). */
  url: string;
  /** The sandbox's schema: the search_path of every connection. */
  schema: string;
  /** host:port/database, for messages. */
  where: string;
  /** [0]: 0 while a request runs, 1 once its answer is posted. */
  signal: SharedArrayBuffer;
  /**
   * The channel to LISTEN on from the start: given to a thread started again after the one
   * before stopped, while somebody listens (a first thread is asked with a ListenRequest).
   */
  listen?: string;
}

/** A statement with parameters, prepared once per connection under `name` ('' for a one-off). */
export interface Query {
  name: string;
  text: string;
  values: unknown[];
}

/**
 * What is sent before a request, in order and in the same pipeline (one round trip with it):
 * simple statements (BEGIN, SAVEPOINT, RELEASE) and writes whose results nobody reads
 * (Db.prepare(...).runLater: queued in a transaction until its next statement or its COMMIT).
 * The first of them to fail fails the request; what follows it in the pipeline does not run
 * (the transaction is aborted).
 */
export type Before = (string | Query)[];

export interface QueryRequest extends Query {
  op: 'query';
  before: Before;
}

/** SQL text of one or more statements, run as a simple query (no parameters). */
export interface ExecRequest {
  op: 'exec';
  before: Before;
  text: string;
}

export interface CloseRequest {
  op: 'close';
}

/**
 * Opens the second connection, which LISTENs on `channel` (once; answered once it listens) and
 * posts what it hears on the notices port (Notice), never on the request port.
 */
export interface ListenRequest {
  op: 'listen';
  channel: string;
}

export type Request = QueryRequest | ExecRequest | CloseRequest | ListenRequest;

/** A notification heard (another daemon's: the worker leaves out its own connection's). */
export interface HeardNotice {
  kind: 'notice';
  payload: string;
}

/** The listening connection was lost and is back: what was sent meanwhile was missed. */
export interface ResyncNotice {
  kind: 'resync';
}

export type Notice = HeardNotice | ResyncNotice;

export interface Field {
  name: string;
  /** PostgreSQL's type oid (17 is bytea: its values are made Buffers again). */
  type: number;
}

export interface Rows {
  ok: true;
  fields: Field[];
  rows: unknown[][];
  changes: number;
  /** The connection the answer came from; a new one means the previous was lost. */
  connection: number;
}

export interface Failure {
  ok: false;
  /** The store could not be reached: the statement did not run, the transaction is gone. */
  unavailable: boolean;
  message: string;
  /** SQLSTATE, or Node's errno code for a socket error. */
  code: string | undefined;
  constraint: string | undefined;
  connection: number;
}

export type Answer = Rows | Failure;
