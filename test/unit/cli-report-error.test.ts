// How the CLI reports a failure: the daemon's own answer keeps its code even when its message
// quotes a network error of a call the daemon made; only a failed connection is "unreachable".
import test from 'ava';
import { reportError } from '../../cli/report-error.js';

/** The JSON document reportError prints with --json, and its exit code. */
function reported(error: unknown): { code: number; doc: { error: Record<string, unknown> } } {
  let written = '';
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string) => {
    written += chunk;
    return true;
  }) as typeof process.stdout.write;
  try {
    const code = reportError(error, true);
    return { code, doc: JSON.parse(written) as { error: Record<string, unknown> } };
  } finally {
    process.stdout.write = write;
  }
}

function trpcError(message: string, data: Record<string, unknown> | undefined): Error {
  const error = new Error(message) as Error & { data?: unknown };
  error.name = 'TRPCClientError';
  error.data = data;
  return error;
}

test("the daemon's answer quoting ECONNREFUSED keeps its code and message", (t) => {
  const message =
    'Run wex_1 ended failed at step call (POST http://127.0.0.1:9/: Could not connect: ECONNREFUSED), not completed.';
  const { code, doc } = reported(
    trpcError(message, { svc_code: 'conflict', code: 'CONFLICT', httpStatus: 409 }),
  );
  t.is(code, 1);
  t.is(doc.error.code, 'conflict');
  t.is(doc.error.message, message);
});

test('a connection the daemon never answered is daemon_unreachable', (t) => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:7717'), {
    code: 'ECONNREFUSED',
  });
  const viaTrpc = reported(
    Object.assign(trpcError('fetch failed', undefined), { cause: new TypeError('fetch failed') }),
  );
  t.is(viaTrpc.doc.error.code, 'daemon_unreachable');
  const viaFetch = reported(new TypeError('fetch failed', { cause: refused }));
  t.is(viaFetch.doc.error.code, 'daemon_unreachable');
  t.regex(String(viaFetch.doc.error.message), /svc daemon status/);
});
