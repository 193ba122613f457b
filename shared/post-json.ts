// `svc listen` forwarding (the CLI posting to a URL its operator chose) through ky: no retries, no
// redirects followed, a hard timeout, the body drained. The daemon's own outbound calls go
// through daemon/outbound/http.ts instead (address checks, size cap).
import ky, { TimeoutError } from 'ky';
import { performance } from 'node:perf_hooks';

export interface SendResult {
  ok: boolean;
  status: number | null;
  timeMs: number;
  error: string | null;
}

export async function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<SendResult> {
  const started = performance.now();
  try {
    const response = await ky.post(url, {
      body,
      headers: { 'content-type': 'application/json', ...headers },
      timeout: timeoutMs,
      retry: 0,
      throwHttpErrors: false,
      redirect: 'manual',
    });
    await response.body?.cancel();
    const ok = response.status >= 200 && response.status < 300;
    return {
      ok,
      status: response.status,
      timeMs: Math.round(performance.now() - started),
      error: ok ? null : `The receiver answered HTTP ${response.status}.`,
    };
  } catch (error) {
    const timeMs = Math.round(performance.now() - started);
    if (error instanceof TimeoutError) {
      return {
        ok: false,
        status: null,
        timeMs,
        error: `No answer within ${Math.round(timeoutMs / 1000)} s.`,
      };
    }
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return {
      ok: false,
      status: null,
      timeMs,
      error: `Could not connect: ${cause?.code ?? cause?.message ?? String(error)}.`,
    };
  }
}
