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
// `svc daemon start --foreground` runs under supervisors that may signal it at once: a SIGINT
// or SIGTERM while the CLI loads is kept here rather than killing it, and answered by not
// starting the daemon, with exit code 0 (cli/daemon-process.ts, runInForeground).
if (['daemon', 'start', '--foreground'].every((word) => process.argv.includes(word))) {
  const keep = (signal) => (globalThis.svcEarlySignal ??= signal);
  process.on('SIGINT', keep);
  process.on('SIGTERM', keep);
}
await import(main.href);
