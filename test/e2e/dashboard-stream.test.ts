// The dashboard's live stream (GET /ui/api/stream) sends what its contract declares
// (daemon/dashboard/contract.ts liveMessages): each message's type is one of the four, and its
// data is exactly what that type's schema says (no field missing, none more). The browser's
// pages are type-checked against the same schemas (lib.js LiveArgs), so a page and the daemon
// cannot disagree on a field unnoticed. Messages are waited for as they arrive, never on a timer.
import test from 'ava';
import { liveMessages, type LiveType } from '../../daemon/dashboard/contract.js';
import { assertExit, startDaemon } from '../helpers/daemon.js';
import { startReceiver } from '../helpers/receiver.js';
import { apiFor, createWorkflow, waitForExecution } from '../helpers/workflows.js';

interface LiveMessage {
  type: string;
  data: unknown;
}

/** Reads a server-sent event stream, and resolves waits for messages as they come. */
class LiveStream {
  readonly messages: LiveMessage[] = [];
  private readonly waiting = new Set<() => void>();
  private buffer = '';

  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {
    void this.read();
  }

  private async read(): Promise<void> {
    const decoder = new TextDecoder();
    for (;;) {
      const { value, done } = await this.reader
        .read()
        .catch(() => ({ value: undefined, done: true }));
      if (done) return;
      this.buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = this.buffer.indexOf('\n\n')) >= 0) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        const type = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (type !== undefined && data !== undefined) {
          this.messages.push({ type, data: JSON.parse(data) });
        }
      }
      for (const wake of this.waiting) wake();
    }
  }

  /** The first message of `type` that `matches`, once it has come. */
  next(type: string, matches: (data: any) => boolean = () => true): Promise<LiveMessage> {
    return new Promise((resolve) => {
      const look = () => {
        const found = this.messages.find((m) => m.type === type && matches(m.data));
        if (!found) return;
        this.waiting.delete(look);
        resolve(found);
      };
      this.waiting.add(look);
      look();
    });
  }

  close(): Promise<void> {
    return this.reader.cancel().catch(() => undefined);
  }
}

test('every live message of the dashboard is one the contract declares, with exactly its fields', async (t) => {
  const d = await startDaemon();
  t.teardown(() => d.stop());
  const { workspaceId: ws } = await d.operator();
  const api = await apiFor(d, ws);

  // A dashboard session, as the login link of `svc dashboard` opens one.
  const link = await d.cli(['dashboard', '--no-open', '--json']);
  assertExit(t, link, 0);
  const login = await fetch(link.json().login_url, { redirect: 'manual' });
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  const response = await fetch(`${d.url}/ui/api/stream?workspace=${ws}`, { headers: { cookie } });
  t.is(response.status, 200);
  t.regex(response.headers.get('content-type')!, /^text\/event-stream/);
  const stream = new LiveStream(response.body!.getReader());
  t.teardown(() => stream.close());

  // One of each: a delivery attempt (and its event), a run, a clock move.
  const receiver = await startReceiver(t);
  const hook = await api('POST', '/webhooks', { url: receiver.url, events: ['agent.created'] });
  t.is(hook.status, 201, JSON.stringify(hook.body));
  const triggered = await d.cli([
    'events',
    'trigger',
    'agent.created',
    '--workspace',
    ws,
    '--json',
  ]);
  assertExit(t, triggered, 0);
  const eventId = triggered.json().id;
  const flow = await createWorkflow(api, {
    name: 'Live',
    steps: [
      {
        id: 'check',
        name: 'Check',
        type: 'condition',
        config: { condition: 'true', if_true: null, if_false: null },
      },
    ],
  });
  const started = await api('POST', `/workflows/${flow}/execute`, { input: {} });
  t.is(started.status, 202, JSON.stringify(started.body));
  const runId = started.body.data.execution_id;
  await waitForExecution(api, flow, runId, (e) => e.status === 'completed');
  await d.advance('1m');

  const seen = await Promise.all([
    stream.next('event', (data) => data.id === eventId),
    stream.next('delivery', (data) => data.delivery.event_id === eventId),
    stream.next('run', (data) => data.execution_id === runId && data.status === 'completed'),
    stream.next('clock'),
  ]);
  t.deepEqual(
    seen.map((message) => message.type),
    ['event', 'delivery', 'run', 'clock'],
  );
  for (const message of stream.messages) {
    t.true(message.type in liveMessages, `an undeclared message type: ${message.type}`);
    const schema = liveMessages[message.type as LiveType];
    const parsed = schema.safeParse(message.data);
    t.true(parsed.success, `${message.type}: ${JSON.stringify(parsed.error?.issues)}`);
    // Parsing drops what a schema does not declare: the same data means no field more.
    t.deepEqual(parsed.data, message.data, message.type);
  }
});
