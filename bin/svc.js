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
// Signals that come while the CLI loads are held until its command decides (cli/early-signals.ts).
const { holdEarlySignals } = await import(
  new URL('../dist/cli/early-signals.js', import.meta.url).href
);
holdEarlySignals();
await import(main.href);
