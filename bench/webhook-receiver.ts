// The webhook receiver for the delivery scenario of `npm run bench`: a bare node:http server in
// its own process (so that neither autocannon nor the publisher's bookkeeping in bench/run.ts
// delays its arrival times), answering every request 200 at once and recording, per request, the
// X-Svc-Event-Id header and the arrival time (when the whole body is in) as
// performance.timeOrigin + performance.now(): wall-clock milliseconds, comparable with the same
// expression in the bench process.
//
// Started by bench/run.ts as `node --import tsx bench/webhook-receiver.ts` with an IPC channel.
// It listens on 127.0.0.1 on a free port and sends {type:"ready", url}; then it answers each
// message from the parent with one message of the same type:
//   {type:"status"} -> {type:"status", received, unique, refused}
//                      requests recorded, distinct event ids among them, requests refused
//   {type:"reset"}  -> {type:"reset"}    forgets them all (after the warm-up)
//   {type:"refuse"} -> {type:"refuse"}   from now on answers 503 and only counts the requests
//                                        (refused), so that the daemon schedules retries
//   {type:"accept"} -> {type:"accept"}   from now on answers 200 and records again (default)
//   {type:"report"} -> {type:"report", ids, times, withoutId}
//                      ids[i] arrived at times[i], in arrival order (repeats are duplicates);
//                      withoutId counts requests that carried no X-Svc-Event-Id
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';

export type ReceiverRequest =
  | { type: 'status' }
  | { type: 'reset' }
  | { type: 'refuse' }
  | { type: 'accept' }
  | { type: 'report' };

export type ReceiverMessage =
  | { type: 'ready'; url: string }
  | { type: 'status'; received: number; unique: number; refused: number }
  | { type: 'reset' }
  | { type: 'refuse' }
  | { type: 'accept' }
  | { type: 'report'; ids: string[]; times: number[]; withoutId: number };

let ids: string[] = [];
let times: number[] = [];
let withoutId = 0;
let unique = new Set<string>();
let refusing = false;
let refused = 0;

const ANSWER = '{"received":true}';
const REFUSAL = '{"received":false}';

const server = createServer((request, response) => {
  const eventId = request.headers['x-svc-event-id'];
  request.on('data', () => {});
  request.on('end', () => {
    const at = performance.timeOrigin + performance.now();
    if (refusing) {
      refused += 1;
      response.writeHead(503, {
        'content-type': 'application/json',
        'content-length': REFUSAL.length,
      });
      response.end(REFUSAL);
      return;
    }
    if (typeof eventId === 'string' && eventId !== '') {
      ids.push(eventId);
      times.push(at);
      unique.add(eventId);
    } else {
      withoutId += 1;
    }
    response.writeHead(200, {
      'content-type': 'application/json',
      'content-length': ANSWER.length,
    });
    response.end(ANSWER);
  });
});
server.keepAliveTimeout = 72_000;
// A client that gives up resets its connection: not an error for the receiver.
server.on('clientError', (_error, socket) => socket.destroy());

function send(message: ReceiverMessage) {
  process.send?.(message);
}

process.on('message', (message: ReceiverRequest) => {
  switch (message.type) {
    case 'status':
      send({ type: 'status', received: ids.length + withoutId, unique: unique.size, refused });
      break;
    case 'reset':
      ids = [];
      times = [];
      withoutId = 0;
      unique = new Set();
      refused = 0;
      send({ type: 'reset' });
      break;
    case 'refuse':
    case 'accept':
      refusing = message.type === 'refuse';
      send({ type: message.type });
      break;
    case 'report':
      send({ type: 'report', ids, times, withoutId });
      break;
  }
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no TCP address');
  send({ type: 'ready', url: `http://127.0.0.1:${address.port}/hooks` });
});

const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
// The bench went away without stopping us.
process.once('disconnect', stop);
