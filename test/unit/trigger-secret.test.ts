// A webhook trigger's secret as the workflow row keeps it (sealed) and as views show it
// (has_secret), and what a write without, with or with a null secret does to the stored one.
import test from 'ava';

import { join } from 'node:path';
import { SecretBox } from '../../daemon/platform/secret-box.js';
import {
  openTrigger,
  publicTrigger,
  resolveTrigger,
} from '../../daemon/triggers/trigger-secret.js';
import { tempDir } from '../helpers/temp-dir.js';

const box = SecretBox.fromKeyFile(join(tempDir('svc-trigger-'), 'secret.key'));
const SECRET = 'whsec_trigger_plain_1';

/** A new webhook trigger on path orders with SECRET, as stored. */
function storedWithSecret() {
  return resolveTrigger({ type: 'webhook', config: { path: 'orders', secret: SECRET } }, null, box)
    .stored;
}

test('a new secret is stored sealed, checked in plain text and shown as has_secret', (t) => {
  const { stored, plain } = resolveTrigger(
    { type: 'webhook', config: { path: 'orders', secret: SECRET } },
    null,
    box,
  );
  const sealed = stored.config.secret as string;
  t.true(SecretBox.isSealed(sealed));
  t.false(JSON.stringify(stored).includes(SECRET));
  t.is(box.open(sealed), SECRET);
  t.deepEqual(plain, { type: 'webhook', config: { path: 'orders', secret: SECRET } });
  t.deepEqual(publicTrigger(stored), {
    type: 'webhook',
    config: { path: 'orders', has_secret: true },
  });
  t.deepEqual(openTrigger(stored, box), plain);
});

test('a write without the secret keeps it, null removes it, a string replaces it', (t) => {
  const first = storedWithSecret();
  const kept = resolveTrigger({ type: 'webhook', config: { path: 'renamed' } }, first, box);
  t.is(kept.stored.config.secret, first.config.secret);
  t.deepEqual(kept.plain.config, { path: 'renamed', secret: SECRET });
  // A trigger read back from a view (has_secret) can be sent again: it keeps the secret.
  const roundTrip = resolveTrigger(publicTrigger(first), first, box);
  t.is(roundTrip.stored.config.secret, first.config.secret);
  t.false('has_secret' in roundTrip.stored.config);

  const removed = resolveTrigger(
    { type: 'webhook', config: { path: 'orders', secret: null } },
    first,
    box,
  );
  t.deepEqual(removed.stored, { type: 'webhook', config: { path: 'orders' } });
  t.deepEqual(publicTrigger(removed.stored), removed.stored);

  const replaced = resolveTrigger(
    { type: 'webhook', config: { path: 'orders', secret: 'whsec_second_one' } },
    first,
    box,
  );
  t.is(box.open(replaced.stored.config.secret as string), 'whsec_second_one');
});

test('other trigger types carry no secret over from a webhook trigger', (t) => {
  const first = storedWithSecret();
  const schedule = resolveTrigger({ type: 'schedule', config: { cron: '@daily' } }, first, box);
  t.deepEqual(schedule.stored, { type: 'schedule', config: { cron: '@daily' } });
  t.deepEqual(resolveTrigger({ type: 'manual' }, first, box).stored, {
    type: 'manual',
    config: {},
  });
  // Without a stored secret, leaving it out stores none.
  t.deepEqual(resolveTrigger({ type: 'webhook', config: { path: 'p' } }, null, box).stored, {
    type: 'webhook',
    config: { path: 'p' },
  });
});
