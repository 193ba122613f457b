// A template's placeholders (the values it leaves to its user, such as a pager's URL) name a step
// config key that holds the placeholder's example: checked when the daemon loads the templates.
import test from 'ava';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadTemplates } from '../../daemon/templates/template.loader.js';
import { tempDir } from '../helpers/temp-dir.js';

function template(placeholders: unknown[]) {
  return {
    id: 'tmpl_paging',
    name: 'Paging',
    description: 'x',
    industry: 'all',
    avg_duration_seconds: 1,
    roles: [{ name: 'worker', description: 'x', agent_type: 'custom' }],
    steps: [
      { id: 'think', name: 'Think', type: 'agent_action', role: 'worker', config: { action: 'x' } },
      { id: 'page', name: 'Page', type: 'webhook', config: { url: 'https://pager.example.com/p' } },
    ],
    placeholders,
  };
}

function load(body: unknown) {
  const dir = tempDir('svc-templates-');
  try {
    writeFileSync(join(dir, 'paging.json'), JSON.stringify(body));
    return loadTemplates(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a placeholder on a step config key holding its example loads, format text by default', (t) => {
  const [loaded] = load(
    template([
      { path: 'steps.page.url', description: 'the pager', example: 'https://pager.example.com/p' },
    ]),
  );
  t.deepEqual(loaded!.placeholders, [
    {
      path: 'steps.page.url',
      description: 'the pager',
      example: 'https://pager.example.com/p',
      format: 'text',
    },
  ]);
});

test('a placeholder naming no step, another key or another example is refused at load', (t) => {
  for (const [path, example] of [
    ['steps.pager.url', 'https://pager.example.com/p'],
    ['steps.page.method', 'https://pager.example.com/p'],
    ['steps.page.url', 'https://elsewhere.example.com/'],
  ]) {
    t.throws(() => load(template([{ path, description: 'x', example }])), {
      message: /placeholders\[0\]\.path must name a step config key holding its example/,
    });
  }
  t.throws(
    () => load(template([{ path: 'trigger.config.path', description: 'x', example: 'y' }])),
    {
      message: /placeholders\.0\.path/,
    },
  );
});

test('every shipped template with a stand-in URL declares it', (t) => {
  for (const shipped of loadTemplates()) {
    const standIns = shipped.steps
      .filter((step) => typeof step.config.url === 'string' && /example\.com/.test(step.config.url))
      .map((step) => `steps.${step.id}.url`);
    t.deepEqual(
      shipped.placeholders.map((placeholder) => placeholder.path),
      standIns,
      shipped.id,
    );
  }
});
