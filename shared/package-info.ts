// The package's own root and version, found by walking up from this file (works from the
// TypeScript sources under tsx and from the compiled dist/ alike).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'bin', 'svc.js'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('svc: cannot find the package root');
    dir = parent;
  }
}

export const PACKAGE_ROOT = findRoot();

export const VERSION: string = (
  JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;
