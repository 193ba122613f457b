// The environment of every svc process a test spawns: the caller's, minus each SVC_* variable,
// so that a developer's SVC_PORT or SVC_WORKSPACE cannot change what a test sees; a test sets
// the SVC_* variables it depends on (the data dir of its daemon, at least) in `env`. The one
// kept is SVC_STORE_URL: the e2e pass on PostgreSQL (scripts/test-e2e-pg.mjs) sets it so that
// every daemon the tests start keeps its sandbox there.
export function svcEnv(env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith('SVC_') || name === 'SVC_STORE_URL',
    ),
  );
  return { ...inherited, ...env };
}
