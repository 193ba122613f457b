#!/usr/bin/env node
// The svc command. The TypeScript sources are compiled to dist/ by `npm install` (prepare), and
// bundled into dist/bundle/, which runs while it is current (shared/bundle-entry.ts).
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const chooser = new URL('../dist/shared/bundle-entry.js', import.meta.url);
if (!existsSync(new URL('../dist/cli/main.js', import.meta.url)) || !existsSync(chooser)) {
  process.stderr.write(
    'svc is not built yet. Run `npm install` (or `npm run build`) in the svc checkout.\n',
  );
  process.exit(1);
}
const { entryFile } = await import(chooser.href);
const entry = (name) => pathToFileURL(entryFile(dist, name)).href;
// Signals that come while the CLI loads are held until its command decides (cli/early-signals.ts).
const { holdEarlySignals } = await import(entry('cli/early-signals'));
holdEarlySignals();
await import(entry('cli/main'));
