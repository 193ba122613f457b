// Housekeeping runs on the daemon clock: `svc clock advance 31d` purges the events and agent
// executions older than 30 days. Purged, not only hidden: moving the clock back (reset) does
// not bring them back, and the log says what went.
import test from 'ava';
import { control } from '../helpers/api.js';
import { sharedDaemon } from '../helpers/setup.js';

const daemon = sharedDaemon(test);

test('clock advance 31d purges events and executions older than 30 days', async (t) => {
  const { key, workspaceId } = await daemon.operator();
  const call = (method: string, path: string, body?: unknown) =>
    daemon.callJson(method, path, body, { key, tenant: workspaceId });

  const created = await call('POST', '/v1/agents', {
    name: 'Kept a while',
    ontology: 'retail-v1',
    type: 'customer-service',
    autonomy_level: 'L3',
  });
  t.is(created.status, 201, created.text);
  const agentId = created.body.data.id as string;
  t.is((await call('POST', '/v1/agents/deploy', { agent_id: agentId })).status, 200);
  const executed = await call('POST', `/v1/agents/${agentId}/execute`, {
    input: 'Where is my order?',
    wait_for_completion: true,
  });
  t.is(executed.status, 200, executed.text);
  const executionId = executed.body.data.execution_id as string;
  // Published by the control call `svc events trigger` makes (tested in cli-operator).
  const triggered = await control<{ id: string }>(daemon, 'events.trigger', {
    type: 'integration.connected',
  });
  const eventId = triggered.id;
  const executionPath = `/v1/agents/${agentId}/executions/${executionId}`;
  t.is((await call('GET', `/v1/events/${eventId}`)).status, 200);
  t.is((await call('GET', executionPath)).status, 200);

  // The clock over the control channel, as `svc clock advance|reset` move it (tested in
  // cli-operator).
  await daemon.advance('31d');
  t.is((await call('GET', `/v1/events/${eventId}`)).status, 404);
  t.is((await call('GET', executionPath)).status, 404);

  // Back to real time: within 30 days of it again, but the rows are gone.
  await control(daemon, 'clock.reset', undefined, 'mutation');
  const event = await call('GET', `/v1/events/${eventId}`);
  t.is(event.status, 404, event.text);
  t.is(event.body.error.code, 'not_found');
  const execution = await call('GET', executionPath);
  t.is(execution.status, 404, execution.text);
  t.is(execution.body.error.code, 'execution_not_found');
  const listed = await call('GET', '/v1/events?type=integration.connected');
  t.is(listed.body.total_count, 0);

  // The log explains it (written in batches: wait for the lines, with a bound).
  const purged = (lines: { msg?: string; task?: string }[]) =>
    lines.filter((line) => line.msg === 'expired rows removed (retention)').map((l) => l.task);
  let tasks: (string | undefined)[] = [];
  for (let tries = 0; tries < 20 && tasks.length < 2; tries++) {
    const logs = await daemon.cli(['daemon', 'logs', '--json', '--lines', '500']);
    tasks = purged(
      logs.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { msg?: string; task?: string }),
    );
  }
  t.deepEqual([...tasks].sort(), ['agent executions', 'events']);
});
