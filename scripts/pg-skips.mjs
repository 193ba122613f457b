// The e2e tests that test SQLite itself (they open svc.db, fill the disk under it, or read its
// bytes), left out of the PostgreSQL pass (scripts/test-e2e-pg.mjs), each with its reason. The
// one list: a test is skipped on PostgreSQL only if it is here. Snapshot files stay SQLite on
// both stores, so the tests that build or tamper with a snapshot file run on both.

/** Whole files: path -> reason. */
export const SKIPPED_FILES = {
  'test/e2e/full-disk.test.ts':
    "fills the file system under svc.db: SQLite's own full-disk path (PostgreSQL's disk is the server's)",
  'test/e2e/full-disk-clock.test.ts':
    "lowers the daemon's RLIMIT_FSIZE so that its writes to svc.db fail (SQLite's full-disk path); on PostgreSQL the server process writes the store, so no write of the daemon's fails",
};

/** Single tests, by their whole title: title -> reason. */
export const SKIPPED_TESTS = {
  'zip-bomb DOCX files are refused with 413 and do not grow the database':
    'measures the size of svc.db and its WAL',
  'a hook body read by ten agent steps is stored once; each step sees it whole':
    "opens svc.db to measure the growth of its used pages (on PostgreSQL the server compresses the test's repeated text, so a size there would not count copies)",
  'a run past 10,000,000 interpolated characters fails at the step that crosses it':
    "opens svc.db to measure the growth of its used pages (on PostgreSQL the server compresses the test's repeated text, so a size there would not count copies)",
  'with 100,000 executions the agent page answers at once':
    'writes its 100,000 rows straight into svc.db',
  'the database holds no plaintext webhook secret or credentials; deliveries verify with the secret from create':
    "reads svc.db's bytes",
  'a database with plaintext secrets (written before encryption) is sealed at start; deliveries still verify':
    'plants plaintext rows in svc.db before the daemon starts',
  'a new data dir is 0700 and every file the daemon writes in it is 0600':
    'expects svc.db and its WAL among the files (the data dir modes are tested by the other data-dir-security tests)',
  'the data dir of every kept release opens on this svc and every waiting run completes':
    "plants each release's svc.db in a data dir (its snapshot is imported on both stores)",
  'a data dir holding a run state from a newer svc does not start, naming the run':
    'plants an svc.db in a data dir (the same state in a snapshot is refused on both stores)',
  "--drop-secrets drops a secret with '/' in its name and workspace id":
    'reads the imported rows back from svc.db (the import itself is the same on both stores)',
  'authentication refuses a standard key with no workspace: 401 invalid_token, in any workspace':
    "plants its key with no workspace by editing svc.db's api_keys (the refusal itself is the store's row, read the same way on both stores)",
  "who served the snapshot's sandbox is left out: daemons, their claims, rate windows, dashboard logins":
    "reads the imported rows back from svc.db (the import leaves them out of its staged SQLite copy, before either store is filled from it; team-mode-postgres checks that a team sandbox's export carries none)",
  "a hostile workflow id in a real daemon's store is offered by no shell, and runs in none":
    "plants its hostile workflow id by editing svc.db's workflows (the completion and the shells read it through the API on both stores)",
};
