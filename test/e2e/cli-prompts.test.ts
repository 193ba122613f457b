// With a terminal, `svc keys create` asks for what its flags did not give (a real pseudo-terminal
// through util-linux `script`); without one it never prompts (see cli-operator.test.ts).
import test from 'ava';
import { SVC_BIN } from '../helpers/daemon.js';
import { sharedDaemon } from '../helpers/setup.js';
import { inTerminal } from '../helpers/terminal.js';

const daemon = sharedDaemon(test);

test('keys create asks for a name and scopes in a terminal, and the key works', async (t) => {
  const screen = await inTerminal(
    `node ${SVC_BIN} keys create --json`,
    [
      ['Key name', 'from-a-terminal\r'],
      // The first choice is agents:read: select it with space, submit with enter.
      ['Scopes for the key', ' \r'],
    ],
    daemon.env,
  );
  const json = screen.slice(screen.indexOf('{\r\n  "id"'));
  const created = JSON.parse(json.slice(0, json.lastIndexOf('}') + 1).replace(/\r/g, '')) as {
    key: string;
    name: string;
    scopes: string[];
  };
  t.is(created.name, 'from-a-terminal');
  t.deepEqual(created.scopes, ['agents:read']);
  const me = await daemon.request('/v1/auth/me', { key: created.key });
  t.is(me.status, 200);
  t.deepEqual(me.body.data.scopes, ['agents:read']);
});
