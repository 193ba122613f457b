// Where a dashboard login link may land (`next`): a page of the dashboard, never anywhere else.
import test from 'ava';
import { landingPath, reopenCommand } from '../../daemon/dashboard/links.js';

test('dashboard pages, with their query, are accepted as they are', (t) => {
  for (const path of [
    '/ui',
    '/ui/',
    '/ui/runs',
    '/ui/runs/wex_2Nf8abc?ws=ws_1A2b',
    '/ui/webhooks/hook_1/deliveries/del_2?ws=ws_x',
    '/ui/runs?status=failed&ws=ws_1',
  ]) {
    t.is(landingPath(path), path, path);
  }
});

test('anything else is refused: other origins, other paths, tricks of spelling', (t) => {
  for (const next of [
    undefined,
    42,
    '',
    'https://attacker.example/ui',
    '//attacker.example/ui',
    '/\\attacker.example',
    '\\\\attacker.example',
    '/ui//attacker.example',
    '/uix',
    '/ui.example',
    '/docs',
    '/v1/workflows',
    '/ui/../v1/keys',
    '/ui/./runs',
    '/ui/%2e%2e/v1',
    '/ui/%2F%2Fattacker.example',
    '/ui/login?token=x',
    '/ui/logout',
    '/ui/api/keys',
    '/ui/assets/app.js',
    '/ui/runs#frag',
    '/ui/runs?x=<script>',
    'javascript:alert(1)',
    '/ui/runs\n/x',
    `/ui/${'a'.repeat(600)}`,
  ]) {
    t.is(landingPath(next), undefined, JSON.stringify(next));
  }
});

test('the login-needed page names the command that comes back to the same object', (t) => {
  t.is(reopenCommand('/ui/runs/wex_2Nf8abc?ws=ws_1'), 'svc open wex_2Nf8abc');
  t.is(reopenCommand('/ui/webhooks/hook_1/deliveries/del_2?ws=ws_1'), 'svc open del_2');
  t.is(reopenCommand('/ui/runs?ws=ws_1'), 'svc dashboard');
  t.is(reopenCommand(''), 'svc dashboard');
  // Only a plain id: the command may be pasted into a shell.
  t.is(reopenCommand('/ui/runs/wex_1$(touch%20x)'), 'svc dashboard');
  t.is(reopenCommand('/ui/runs/wex_1;rm'), 'svc dashboard');
});
