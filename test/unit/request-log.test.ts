// The request log at info writes up to a per-second budget of request lines and says how many it
// left out, successful and refused (4xx) requests each within their own budget; at debug it
// writes every one; 5xx answers always.
import test from 'ava';
import Fastify from 'fastify';
import pino from 'pino';
import { RequestLineBudget, RequestLogController } from '../../daemon/http/request-log.js';

test('the budget lets perSecond lines through a window and reports the rest once it ends', (t) => {
  let now = 10_000;
  const reports: number[] = [];
  const budget = new RequestLineBudget(
    3,
    (skipped) => reports.push(skipped),
    () => now,
  );
  const taken = Array.from({ length: 5 }, () => budget.take());
  t.deepEqual(taken, [true, true, true, false, false]);
  t.deepEqual(reports, [], 'said when the window is over, not before');
  now += 999;
  t.false(budget.take());
  now += 1;
  t.true(budget.take(), 'a new window starts with a full budget');
  t.deepEqual(reports, [3]);
  budget.close();
  t.deepEqual(reports, [3], 'nothing left out in this window: nothing to say');
});

test('lines left out are said when the window ends even if no request follows', async (t) => {
  const reports: number[] = [];
  const budget = new RequestLineBudget(1, (skipped) => reports.push(skipped));
  budget.take();
  budget.take();
  budget.take();
  await new Promise((resolve) => setTimeout(resolve, 1100));
  t.deepEqual(reports, [2]);
});

async function serverLogging(level: 'info' | 'debug', perSecond: number) {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino(
    { level },
    { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  // A clock that stands still: every request falls in one window however slow the machine is.
  const requestLog = new RequestLogController(logger, perSecond, () => 0);
  const app = Fastify({
    loggerInstance: logger,
    logController: requestLog,
    childLoggerFactory: (parent) => parent,
  });
  app.get('/ok', async () => ({ ok: true }));
  app.get('/broken', async (_request, reply) => reply.code(503).send({ ok: false }));
  app.get('/refused', async (_request, reply) => reply.code(422).send({ ok: false }));
  await app.ready();
  const requests = async (url: string, count: number) => {
    for (let n = 0; n < count; n += 1) await app.inject({ url: `${url}?api_key=sk_test_x` });
  };
  return { app, requestLog, lines, requests };
}

test('at info a burst over the budget writes the budget and one line saying how many were left out', async (t) => {
  const { app, requestLog, lines, requests } = await serverLogging('info', 5);
  await requests('/ok', 12);
  await requests('/refused', 3);
  await requests('/broken', 2);
  await requests('/refused', 4);
  await app.close();
  requestLog.close();
  const requestLines = lines.filter((line) => line.msg === 'request');
  const withStatus = (status: number) => requestLines.filter((line) => line.status === status);
  t.is(withStatus(200).length, 5);
  t.is(withStatus(422).length, 5, 'refusals have their own budget: the successes used theirs up');
  t.is(withStatus(503).length, 2, '5xx answers always');
  t.is(requestLines[0]?.url, '/ok?api_key=[redacted]');
  const said = lines.filter((line) => line.skipped !== undefined);
  t.deepEqual(
    said.map((line) => [line.requests, line.skipped]),
    [
      ['succeeded', 7],
      ['refused', 2],
    ],
  );
  t.regex(String(said[0]?.msg), /--log-level debug/);
});

test('at debug every request line is written', async (t) => {
  const { app, requestLog, lines, requests } = await serverLogging('debug', 5);
  await requests('/ok', 12);
  await app.close();
  requestLog.close();
  t.is(lines.filter((line) => line.msg === 'request').length, 12);
  t.false(lines.some((line) => line.skipped !== undefined));
});
