// What a workflow's page works out from the API's view: the webhook trigger's URL and curl
// command (signed with openssl when the trigger has a secret, the secret itself never in it),
// what each version changed from the one before, and the input fields the steps read.
import test from 'ava';
import type { TypedStep } from '../../shared/schemas/steps.js';
import { hookCall, payloadFields, versionChanges } from '../../daemon/dashboard/workflow-facts.js';

const wait = (id: string, seconds = 1) =>
  ({
    id,
    name: id,
    type: 'wait',
    agent_id: null,
    config: { duration_seconds: seconds },
    next_step_id: null,
    on_error: null,
  }) as TypedStep;

test('an unsigned trigger is one curl to the hook URL; a signed one signs with openssl', (t) => {
  const plain = hookCall('http://127.0.0.1:7717', 'ws_1', { path: 'orders-in' });
  t.deepEqual(plain, {
    url: 'http://127.0.0.1:7717/v1/hooks/ws_1/orders-in',
    signed: false,
    curl: `curl -sS -X POST 'http://127.0.0.1:7717/v1/hooks/ws_1/orders-in' -H 'content-type: application/json' --data '{"example": true}'`,
  });
  const signed = hookCall('http://127.0.0.1:7717', 'ws_1', { path: 'orders-in', has_secret: true });
  t.true(signed.signed);
  t.regex(signed.curl, /^HOOK_SECRET='the secret you gave the trigger'$/m);
  t.regex(signed.curl, /openssl dgst -sha256 -hmac "\$HOOK_SECRET"/);
  t.regex(signed.curl, /-H "X-Svc-Signature: t=\$t,v1=\$sig" --data "\$body"$/);
});

test('a version says what it changed from the one before', (t) => {
  const settings = { timeout_seconds: 3600 };
  const v1 = { name: 'Flow', steps: [wait('a'), wait('b')], settings };
  t.deepEqual(versionChanges(v1, undefined), ['created']);
  t.deepEqual(
    versionChanges(
      { name: 'Flow 2', steps: [wait('a', 5), wait('c')], settings: { timeout_seconds: 60 } },
      v1,
    ),
    [
      'renamed from "Flow"',
      'steps added: c',
      'steps removed: b',
      'steps changed: a',
      'settings changed',
    ],
  );
  t.deepEqual(versionChanges({ ...v1, steps: [wait('b'), wait('a')] }, v1), ['steps reordered']);
  t.deepEqual(versionChanges({ ...v1 }, v1), ['no change to steps or settings']);
});

test('the input fields are those the steps read of trigger.payload, in order of first use', (t) => {
  const steps = [
    {
      ...wait('check'),
      type: 'condition',
      config: { condition: 'trigger.payload.amount > 100 && trigger.payload.vip', if_true: 'a' },
    },
    {
      ...wait('a'),
      type: 'webhook',
      config: {
        url: 'http://x',
        body: { o: '{{ trigger.payload.order.id }}', a: '{{trigger.payload.amount}}' },
      },
    },
    wait('b'),
  ] as TypedStep[];
  t.deepEqual(payloadFields(steps), ['amount', 'vip', 'order']);
  t.deepEqual(payloadFields([wait('b')]), []);
});
