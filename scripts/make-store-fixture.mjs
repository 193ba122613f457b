// Makes the store fixture of a release: test/fixtures/stores/<release>/ (a data dir and a
// `svc state export` snapshot with runs parked in every way a run waits), written by the svc
// built in this checkout at its current commit, which fixture.json records. Run it once per
// release that changes the store or a run's stored state, then commit the folder as made:
//
//   npm run build && node scripts/make-store-fixture.mjs 2026-11-29-f621bc8
//
// The folder name is the release's date and commit (so the names sort oldest first), and
// test/e2e/run-state-fixtures.test.ts resumes every one. The work is in
// test/helpers/store-fixture.ts (TypeScript, beside the e2e helpers it uses).
import { tsImport } from 'tsx/esm/api';

const release = process.argv[2];
if (!release || !/^[0-9]{4}-[0-9]{2}-[0-9]{2}-[0-9a-f]{7,40}$/.test(release)) {
  console.error('Usage: node scripts/make-store-fixture.mjs <YYYY-MM-DD-commit>');
  process.exit(2);
}
const { makeStoreFixture } = await tsImport('../test/helpers/store-fixture.ts', import.meta.url);
const made = await makeStoreFixture(release);
console.log(`Wrote ${made}`);
process.exit(0);
