// Writes the OpenAPI document to a file (for Redocly lint in `npm test`), built exactly as the
// daemon serves it, on a throwaway data dir.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from './app.js';

const target = process.argv[2] ?? 'openapi.json';
const dataDir = mkdtempSync(join(tmpdir(), 'svc-openapi-'));
const svc = await buildApp({ dataDir, environment: 'sandbox', controlToken: 'export' });
try {
  const response = await svc.app.inject({ method: 'GET', url: '/openapi.json' });
  writeFileSync(target, response.body);
} finally {
  await svc.close();
  rmSync(dataDir, { recursive: true, force: true });
}
