// The dashboard's files (its script, styles and the Preact/htm modules), built into dist/ui by
// `npm run build` (scripts/build-ui.mjs). Read once at start into memory: a handful of small
// files, served with an ETag, never from a path the request names.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { PACKAGE_ROOT } from '../../shared/package-info.js';

export const ASSETS_DIR = join(PACKAGE_ROOT, 'dist', 'ui');

export interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.html': 'text/html; charset=utf-8',
};

/** Every file of the built dashboard by its path under /ui/assets/ (empty when not built). */
export function loadAssets(dir = ASSETS_DIR): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (!existsSync(dir)) return assets;
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) {
        walk(path);
        continue;
      }
      const type = TYPES[extname(name)];
      if (!type) continue;
      const body = readFileSync(path);
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 20)}"`;
      assets.set(relative(dir, path).split(sep).join('/'), { body, type, etag });
    }
  };
  walk(dir);
  return assets;
}
