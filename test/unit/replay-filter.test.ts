// The window of a replay as asked (replayFilter of daemon/webhooks/deliveries/replay.ts), shared by
// the control channel's webhooks.replay (svc webhooks replay) and the dashboard's webhook page.
import test from 'ava';
import { WebhookReplayInput } from '../../shared/schemas/replay.js';
import { ApiError } from '../../daemon/domain/errors.js';
import { replayFilter } from '../../daemon/webhooks/deliveries/replay.js';

const NOW = Date.parse('2030-01-02T00:00:00Z');
const asked = (fields: Record<string, unknown>) =>
  WebhookReplayInput.parse({ webhook_id: 'hook_1', ...fields });

test('no window given: every delivery up to now, the defaults of svc webhooks replay', (t) => {
  t.deepEqual(replayFilter(asked({}), NOW), {
    from: 0,
    to: NOW,
    status: 'failed',
    eventType: undefined,
    dryRun: false,
    limit: 1000,
    includeDeliveries: false,
  });
});

test('from and to are taken as given; since_ms counts back from now', (t) => {
  const window = replayFilter(
    asked({ from: '2030-01-01T00:00:00Z', to: '2030-01-01T12:00:00.500+01:00', status: 'all' }),
    NOW,
  );
  t.is(window.from, Date.parse('2030-01-01T00:00:00Z'));
  t.is(window.to, Date.parse('2030-01-01T11:00:00.500Z'));
  t.is(window.status, 'all');
  t.is(replayFilter(asked({ since_ms: 3_600_000 }), NOW).from, NOW - 3_600_000);
});

test('a window that ends before it starts is refused, in the words of the CLI', (t) => {
  const error = t.throws(
    () => replayFilter(asked({ from: '2030-01-01T00:00:01Z', to: '2030-01-01T00:00:00Z' }), NOW),
    { instanceOf: ApiError },
  );
  t.is(error.code, 'invalid_parameter');
  t.is(error.param, 'from');
  t.is(error.message, '--from must be before --to.');
  // A window of one instant is a window.
  const at = '2030-01-01T00:00:00Z';
  t.is(replayFilter(asked({ from: at, to: at }), NOW).to, Date.parse(at));
});
