// Builds the dashboard's files into dist/ui (run by `npm run build`, so `npm install` builds it
// too): the page script and styles from daemon/dashboard/web as they are, and the ES modules of Preact,
// its hooks and htm from node_modules. No bundler and no network: the browser loads ES modules,
// and the one bare import (hooks -> "preact") is pointed at the file next to it.
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'ui');
const require = createRequire(import.meta.url);
// The folder of a package's main file (their package.json is not exported).
const distDir = (name) => dirname(require.resolve(name));

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'vendor'), { recursive: true });
// Not the files only the type-check reads (web/tsconfig.json, the vendor modules' .d.mts).
cpSync(join(root, 'daemon', 'dashboard', 'web'), out, {
  recursive: true,
  filter: (source) => !/(\.d\.m?ts|tsconfig\.json)$/.test(source),
});

// The words the CLI uses for durations, compiled by tsc (no imports): one formatDuration for both.
mkdirSync(join(out, 'shared'), { recursive: true });
const durationJs = readFileSync(join(root, 'dist', 'shared', 'duration.js'), 'utf8');
writeFileSync(
  join(out, 'shared', 'duration.js'),
  durationJs.replace(/\n\/\/# sourceMappingURL=.*$/m, '\n'),
);

const vendor = [
  ['preact.mjs', join(distDir('preact'), 'preact.mjs')],
  ['hooks.mjs', join(distDir('preact'), '..', 'hooks', 'dist', 'hooks.mjs')],
  ['htm.mjs', join(distDir('htm'), 'htm.mjs')],
];
for (const [name, file] of vendor) {
  const text = readFileSync(file, 'utf8').replace(/from\s*"preact"/g, 'from"./preact.mjs"');
  // The source map comments point at files that are not shipped.
  writeFileSync(join(out, 'vendor', name), text.replace(/\n\/\/# sourceMappingURL=.*$/m, '\n'));
}
