// cli/hints.ts: the REST hints of API messages, said as svc commands; the workspace of a miss.
import test from 'ava';
import { cliMessage } from '../../cli/hints.js';

const byFlag = { id: 'ws_1', source: 'from --workspace' };

test('an agent in training or paused names the svc command that activates it', (t) => {
  t.is(
    cliMessage(
      'agent_not_active',
      'Agent agt_1 is training, not active. It becomes active when training ends, or at once with PATCH {"status": "active"} or POST /v1/agents/deploy.',
      byFlag,
    ),
    'Agent agt_1 is training, not active. It becomes active when training ends, or at once with: svc agents deploy agt_1',
  );
  t.is(
    cliMessage(
      'agent_not_active',
      'Agent agt_2 is paused, not active. Activate it with PATCH {"status": "active"}.',
      byFlag,
    ),
    'Agent agt_2 is paused, not active. Activate it with: svc agents update agt_2 --status active',
  );
});

test('a missing template and a miss in the default workspace', (t) => {
  t.is(
    cliMessage(
      'not_found',
      "No workflow template 'x'. List them with GET /v1/workflows/templates or: svc workflows templates",
      byFlag,
    ),
    "No workflow template 'x'. List them with: svc workflows templates",
  );
  t.is(
    cliMessage(
      'webhook_not_found',
      'No webhook hook_1 in this workspace. List them with GET /v1/webhooks.',
      {
        id: undefined,
        source: 'the default workspace',
      },
    ),
    'No webhook hook_1 in the default workspace (choose another with --workspace ID or SVC_WORKSPACE). List them with: svc webhooks list.',
  );
});

test('a message without REST wording is left as it is', (t) => {
  const message = 'No fault rule flt_1 here. List them with: svc faults list';
  t.is(cliMessage('invalid_parameter', message, byFlag), message);
});
