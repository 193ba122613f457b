// Team mode (issue 54): a daemon that starts while another serves the sandbox does not catch
// schedules up. The catch-up (one run for the latest of the occurrences missed while no daemon
// ran) is for a sandbox nobody served; beside a live daemon it moved a schedule that daemon was
// about to fire, one tick after the other, after a clock move: the ticks between were skipped.
// Here the frozen clock moves from 00:00:30 to 00:06 in the store under a live daemon B (as a
// `svc clock advance` on B stands, just before B fires what fell due), and A starts then: each
// of the six ticks the move passed starts one run, none skipped, none twice.
import test from 'ava';
import { psql, throwawayPostgres, twoDaemonsOn, type TestPostgres } from '../helpers/postgres.js';
import { daemonsStoppedAfterFile } from '../helpers/team-daemons.js';
import { allExecutions, apiFor, createWorkflow } from '../helpers/workflows.js';

let pg: Required<TestPostgres>;
test.before(async () => {
  pg = await throwawayPostgres();
});

const started = daemonsStoppedAfterFile();

const SANDBOX = 'catch_up';

test.serial(
  'a daemon started beside a live one catches no schedule up: each tick the clock passed runs once',
  async (t) => {
    const [a, b] = await twoDaemonsOn(pg.url, SANDBOX, started);
    const why = (text: string) => `${text} (daemons' logs: ${a.dataDir}, ${b.dataDir})`;
    const set = await a.cli(['clock', 'set', '2030-01-01T00:00:30Z', '--frozen']);
    t.is(set.code, 0, why(set.stderr));
    const { workspaceId } = await a.operator();
    const api = await apiFor(a, workspaceId);
    const ticking = await createWorkflow(api, {
      name: 'Every minute',
      status: 'active',
      trigger: { type: 'schedule', config: { cron: '* * * * *', timezone: 'UTC' } },
      steps: [
        {
          id: 'tick',
          name: 'Tick',
          type: 'condition',
          config: { condition: 'true', if_true: null, if_false: null },
        },
      ],
    });
    // Stopped, its data dir (and key) kept for its start again.
    const stopped = await a.cli(['daemon', 'stop']);
    t.is(stopped.code, 0, why(stopped.stderr));
    // The clock moved in the store; B is not told: it stands for a live daemon that has just
    // moved it and is about to fire 00:01 to 00:06, one after the other.
    psql(
      pg.url,
      `UPDATE ${SANDBOX}.settings SET value = '${Date.parse('2030-01-01T00:06:00Z')}' WHERE key = 'clock_frozen_at_ms'`,
    );
    const again = await a.cli(['daemon', 'start', '--port', '0', '--json', '--sandbox', SANDBOX]);
    t.is(again.code, 0, why(again.stderr + again.stdout));
    const settled = await a.cli(['settle', '--json']);
    t.is(settled.code, 0, why(settled.stderr));

    // Read through B: A listens on another port now.
    const ticks = (await allExecutions(await apiFor(b, workspaceId), ticking))
      .map((run: { input: { scheduled_at: string } }) => run.input.scheduled_at)
      .sort();
    t.deepEqual(
      ticks,
      ['00:01', '00:02', '00:03', '00:04', '00:05', '00:06'].map(
        (minute) => `2030-01-01T${minute}:00.000Z`,
      ),
      why('one run for each tick the clock passed'),
    );
  },
);
