#!/usr/bin/env node
// The svc command. The TypeScript sources are compiled to dist/ by `npm install` (prepare).
import { existsSync } from 'node:fs';

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write(
    'svc is not built yet. Run `npm install` (or `npm run build`) in the svc checkout.\n',
  );
  process.exit(1);
}
await import(main.href);
