// The outbound module (daemon/outbound/http.ts) against a real local server: what is sent, the
// answer read back, a 3xx kept as the answer, the cap on an answer's size (declared and
// streamed), a timeout that covers the body, production's refusal of a loopback address, and
// the worker thread the calls are made in, which exits when idle.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import test, { type ExecutionContext } from 'ava';
import { OutboundHttp } from '../../daemon/outbound/http.js';

interface Seen {
  method: string;
  headers: IncomingMessage['headers'];
  /** Names and values as they came, in order (Node's headers object drops `__proto__`). */
  rawHeaders: string[];
  body: string;
}

async function server(answer: (res: ServerResponse, seen: Seen) => void) {
  const seen: Seen[] = [];
  const http = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body,
      };
      seen.push(request);
      answer(res, request);
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/hook?x=1`;
  return {
    url,
    seen,
    close: () => {
      http.closeAllConnections();
      return new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/**
 * The call timeout where the receiver answers at once: it only guards a hang, so it is wide (the
 * earlier 5 s and 10 s were reached on a loaded machine).
 */
const AT_ONCE_MS = 60_000;

const sandbox = () => new OutboundHttp({ environment: 'sandbox', allowPrivateNetwork: false });

/** A receiver that answers with `answer` and a sandbox OutboundHttp, both closed after the test. */
async function sandboxAndReceiver(
  t: ExecutionContext,
  answer: (res: ServerResponse, seen: Seen) => void,
) {
  const receiver = await server(answer);
  const outbound = sandbox();
  t.teardown(() => Promise.all([receiver.close(), outbound.close()]));
  return { receiver, outbound };
}

test('sends method, headers and body; reads the answer', async (t) => {
  const { receiver, outbound } = await sandboxAndReceiver(t, (res, seen) => {
    res.writeHead(201, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ echoed: seen.body.length }));
  });
  const result = await outbound.request({
    url: receiver.url,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-svc-event-id': 'evt_1' },
    body: '{"a":1}',
    timeoutMs: AT_ONCE_MS,
  });
  t.like(result, { type: 'response', status: 201, body: '{"echoed":7}' });
  t.is(receiver.seen.length, 1);
  t.like(receiver.seen[0], { method: 'POST', body: '{"a":1}' });
  t.is(receiver.seen[0]!.headers['x-svc-event-id'], 'evt_1');
  t.regex(String(receiver.seen[0]!.headers['user-agent']), /^svc\//);
});

test('header names are sent in lower case, a later spelling winning, any name kept; the user agent can be set', async (t) => {
  const { receiver, outbound } = await sandboxAndReceiver(t, (res) => res.end());
  const result = await outbound.request({
    url: receiver.url,
    method: 'post',
    // As a workflow step's headers arrive: parsed JSON, where `__proto__` is a name like any other.
    headers: JSON.parse(
      '{"content-type": "application/json", "Content-Type": "text/plain", "User-Agent": "mine/1", "__proto__": "kept"}',
    ) as Record<string, string>,
    body: 'x',
    timeoutMs: AT_ONCE_MS,
  });
  t.like(result, { type: 'response', status: 200 });
  const seen = receiver.seen[0]!;
  t.is(seen.method, 'POST');
  t.is(seen.headers['content-type'], 'text/plain');
  t.is(seen.headers['user-agent'], 'mine/1');
  t.is(seen.rawHeaders[seen.rawHeaders.indexOf('__proto__') + 1], 'kept');
});

test('a header value that cannot be sent fails the call, naming the header, and sends nothing', async (t) => {
  const { receiver, outbound } = await sandboxAndReceiver(t, (res) => res.end());
  const result = await outbound.request({
    url: receiver.url,
    headers: { 'x-from-template': 'a\r\nInjected: yes' },
    timeoutMs: AT_ONCE_MS,
  });
  t.like(result, { type: 'failed', reason: 'connect', status: null });
  t.regex((result as { message: string }).message, /^The request was not sent: .*x-from-template/);
  t.is(receiver.seen.length, 0);
});

test('a redirect is the answer, never followed', async (t) => {
  const { receiver, outbound } = await sandboxAndReceiver(t, (res) => {
    res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' });
    res.end();
  });
  const result = await outbound.request({ url: receiver.url, timeoutMs: AT_ONCE_MS });
  t.like(result, { type: 'response', status: 302, body: '' });
});

test('an answer over the cap fails too_large with its status, declared or streamed', async (t) => {
  const declared = await server((res) => {
    res.writeHead(200, { 'content-length': '5000' });
    res.end('x'.repeat(5000));
  });
  const streamed = await server((res) => {
    res.writeHead(202);
    for (let i = 0; i < 10; i++) res.write('y'.repeat(1000));
    res.end();
  });
  const outbound = sandbox();
  t.teardown(() => Promise.all([declared.close(), streamed.close(), outbound.close()]));
  const first = await outbound.request({
    url: declared.url,
    timeoutMs: AT_ONCE_MS,
    maxResponseBytes: 1000,
  });
  t.like(first, { type: 'failed', reason: 'too_large', status: 200 });
  t.regex((first as { message: string }).message, /5000 bytes, over the 1000 bytes/);
  const second = await outbound.request({
    url: streamed.url,
    timeoutMs: AT_ONCE_MS,
    maxResponseBytes: 1000,
  });
  t.like(second, { type: 'failed', reason: 'too_large', status: 202 });
});

test('the timeout covers the answer body too', async (t) => {
  const { receiver, outbound } = await sandboxAndReceiver(t, (res) => {
    res.writeHead(200);
    res.write('started, never finished');
  });
  const result = await outbound.request({ url: receiver.url, timeoutMs: 300 });
  t.like(result, { type: 'failed', reason: 'timeout', message: 'No answer within 0.3 s.' });
});

test('production refuses a loopback address, and an http URL, before any request is sent', async (t) => {
  const receiver = await server((res) => res.end('reached'));
  const outbound = new OutboundHttp({ environment: 'production', allowPrivateNetwork: false });
  t.teardown(() => Promise.all([receiver.close(), outbound.close()]));
  const plain = await outbound.request({ url: receiver.url, timeoutMs: AT_ONCE_MS });
  t.like(plain, { type: 'failed', reason: 'invalid_url' });
  const loopback = await outbound.request({
    url: receiver.url.replace('http://', 'https://'),
    timeoutMs: AT_ONCE_MS,
  });
  t.like(loopback, { type: 'failed', reason: 'invalid_url' });
  t.is(receiver.seen.length, 0);
});

test('calls run concurrently in the worker; close() fails the unanswered ones, and the next call starts a new worker', async (t) => {
  const held: ServerResponse[] = [];
  const { receiver, outbound } = await sandboxAndReceiver(t, (res, seen) => {
    if (seen.body === 'hold') held.push(res);
    else res.end(`ok ${seen.body}`);
  });
  const call = (body: string) =>
    outbound.request({ url: receiver.url, method: 'POST', body, timeoutMs: AT_ONCE_MS });
  const hanging = call('hold');
  const answers = await Promise.all([1, 2, 3].map((n) => call(String(n))));
  t.deepEqual(
    answers.map((answer) => answer.type === 'response' && answer.body),
    ['ok 1', 'ok 2', 'ok 3'],
  );
  await outbound.close();
  t.like(await hanging, { type: 'failed', reason: 'connect', message: 'The daemon is stopping.' });
  t.like(await call('4'), { type: 'response', status: 200, body: 'ok 4' });
});

test('the worker exits after a while without calls, and the next call starts a new one', async (t) => {
  const receiver = await server((res, seen) => res.end(`ok ${seen.body}`));
  const outbound = new OutboundHttp(
    { environment: 'sandbox', allowPrivateNetwork: false },
    { idleMs: 100 },
  );
  t.teardown(() => Promise.all([receiver.close(), outbound.close()]));
  const call = (body: string) =>
    outbound.request({ url: receiver.url, method: 'POST', body, timeoutMs: AT_ONCE_MS });
  t.false(outbound.running, 'no worker before the first call');
  t.like(await call('1'), { type: 'response', body: 'ok 1' });
  t.true(outbound.running);
  // Idle after 100 ms; the bound only keeps a worker that never exits from hanging the test.
  const deadline = Date.now() + 30_000;
  while (outbound.running && Date.now() < deadline) await sleep(20);
  t.false(outbound.running, 'the worker exited once idle');
  t.like(await call('2'), { type: 'response', body: 'ok 2' });
  t.true(outbound.running, 'a new worker made the next call');
});
