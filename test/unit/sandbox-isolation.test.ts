// svc/testing sandboxes side by side in one process: their settings come from their options,
// never from the process environment; many of them add no process listeners beyond one and
// leave no file open once stopped; 20 at once do not see each other's data, clock or deliveries.
import test from 'ava';
import { mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createSandbox, type Sandbox } from '../../testing/index.js';

async function deployedAgent(sb: Sandbox): Promise<string> {
  const created = await sb.api.POST('/v1/agents', {
    body: { name: 'A', ontology: 'retail-v1', type: 'customer-service', autonomy_level: 'L3' },
  });
  const id = created.data!.data.id;
  await sb.api.POST('/v1/agents/deploy', { body: { agent_id: id } });
  return id;
}

function execute(sb: Sandbox, agentId: string, input: string) {
  return sb.api.POST('/v1/agents/{agent_id}/execute', {
    params: { path: { agent_id: agentId } },
    body: { input, wait_for_completion: true },
  });
}

test.serial(
  'brain and settings come from the options, not from the process environment',
  async (t) => {
    const cassettes = mkdtempSync(join(tmpdir(), 'svc-cassettes-'));
    t.teardown(() => rmSync(cassettes, { recursive: true, force: true }));
    writeFileSync(join(cassettes, 'broken.json'), JSON.stringify({ interactions: 'x' }));
    const saved = { ...process.env };
    // What a caller's shell might hold: no sandbox may pick it up.
    process.env.SVC_AGENT_BRAIN = 'replay';
    process.env.SVC_AGENT_TRAINING_SECONDS = '3600';
    try {
      await using plain = await createSandbox();
      const simulated = await execute(plain, await deployedAgent(plain), 'hello');
      t.is(simulated.response.status, 200, 'the simulated brain, trained at once is not needed');
      t.is(simulated.data?.data.status, 'completed');

      await using replaying = await createSandbox({
        brain: { provider: 'replay', cassetteDir: cassettes, cassette: 'broken.json' },
        svcEnv: { SVC_AGENT_TIMEOUT_SECONDS: '5' },
      });
      const replayed = await execute(replaying, await deployedAgent(replaying), 'hello');
      t.is(replayed.response.status, 502);
      // The cassette was read from the folder given: a missing one would say "no recorded answer".
      const { message } = (replayed.error as { error: { message: string } }).error;
      t.regex(message, /broken\.json.*interactions/);
    } finally {
      process.env = saved;
    }
  },
);

test('svcEnv takes only the daemon settings, and says where other variables go', async (t) => {
  const error = await t.throwsAsync(createSandbox({ svcEnv: { DATABASE_URL: 'x' } }));
  t.regex(
    error.message,
    /svcEnv takes the daemon's SVC_\* settings .* not DATABASE_URL; .* go in env/,
  );
});

test('stubs give an agent a fixed answer', async (t) => {
  await using sb = await createSandbox();
  const agent = await deployedAgent(sb);
  await sb.stubs.add(agent, { match: 'refund', result: { output: 'Refund sent.' } });
  t.is((await sb.stubs.list(agent)).length, 1);
  const answer = await execute(sb, agent, 'please refund order 7');
  t.is(answer.data?.data.result?.output, 'Refund sent.');
  t.is((await sb.stubs.clear(agent)).cleared, 1);
});

test.serial(
  'twelve sandboxes: one exit listener, no MaxListeners warning, no file left open',
  async (t) => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    t.teardown(() => process.off('warning', onWarning));
    const exitListeners = process.listenerCount('exit');
    const many = await Promise.all(Array.from({ length: 12 }, () => createSandbox()));
    t.true(process.listenerCount('exit') <= exitListeners + 1, 'one listener for all loggers');
    t.true(sandboxFiles().length >= 12, 'each has its log file open');
    await Promise.all(many.map((sb) => sb.stop()));
    await new Promise((resolve) => setImmediate(resolve)); // a warning is emitted on next tick
    t.deepEqual(
      warnings.filter((w) => w.includes('MaxListeners')),
      [],
    );
    t.true(process.listenerCount('exit') <= exitListeners);
    t.deepEqual(sandboxFiles(), [], 'no file of a stopped sandbox is left open');
  },
);

/** The files of sandbox data dirs this process holds open. */
function sandboxFiles(): string[] {
  const open: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.includes('svc-sandbox-')) open.push(target);
    } catch {
      // closed meanwhile
    }
  }
  return open;
}

test.serial('20 sandboxes at once: data, clocks, keys and deliveries stay their own', async (t) => {
  const started = performance.now();
  const boxes = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      createSandbox({ clock: `2026-01-${String(i + 1).padStart(2, '0')}T09:00:00Z` }),
    ),
  );
  t.teardown(() => Promise.all(boxes.map((sb) => sb.stop())));
  const created = performance.now() - started;
  const runs = await Promise.all(
    boxes.map(async (sb, i) => {
      const hook = await sb.receiver();
      await sb.api.POST('/v1/webhooks', {
        body: { url: hook.url, events: ['workflow.execution.completed'] },
      });
      const flow = await sb.api.POST('/v1/workflows', {
        body: {
          name: `Flow ${i}`,
          status: 'active',
          steps: [{ id: 'pause', name: 'Pause', type: 'wait', config: { duration_seconds: 60 } }],
        },
      });
      const run = await sb.api.POST('/v1/workflows/{workflow_id}/execute', {
        params: { path: { workflow_id: flow.data!.data.id } },
        body: { input: { i }, wait_for_completion: false },
      });
      return { hook, executionId: run.data!.data.execution_id };
    }),
  );
  await Promise.all(boxes.map((sb) => sb.clock.advance('1m')));
  await Promise.all(
    boxes.map((sb, i) =>
      sb.runs.wait(runs[i]!.executionId, { status: 'completed', timeout: '30s' }),
    ),
  );
  for (const [i, sb] of boxes.entries()) {
    const { hook, executionId } = runs[i]!;
    const delivery = await hook.next({ type: 'workflow.execution.completed', timeout: '30s' });
    t.is(delivery.body.data.execution_id, executionId, `sandbox ${i}: its own run's delivery`);
    t.true(delivery.signature?.valid);
    t.is(hook.all().length, 1, `sandbox ${i}: nothing from the others`);
    const flows = await sb.api.GET('/v1/workflows');
    t.deepEqual(
      flows.data!.data.map((flow) => flow.name),
      [`Flow ${i}`],
    );
    t.is((await sb.clock.now()).slice(0, 10), `2026-01-${String(i + 1).padStart(2, '0')}`);
  }
  const neighbour = await fetch(`${boxes[0]!.url}/v1/workflows`, {
    headers: { authorization: `Bearer ${boxes[1]!.key}` },
  });
  t.is(neighbour.status, 401, "a sandbox refuses another sandbox's key");
  t.log(`20 sandboxes created at once in ${Math.round(created)} ms`);
});
