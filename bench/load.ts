// Load helpers the bench cases share (next to bench/harness.ts): an autocannon run measured with
// the CPU the loaded process spent, and a POST over a keep-alive agent for cases that drive
// requests themselves (autocannon cannot send what an answer decides).
import http from 'node:http';
import autocannon from 'autocannon';
import { cpuSeconds, type RunFigures } from './harness.js';

/** Runs autocannon and answers its result with the figures, CPU per request of process `pid`. */
export async function loadWithCpu(
  pid: number,
  options: autocannon.Options,
): Promise<{ result: autocannon.Result; figures: RunFigures }> {
  const before = cpuSeconds(pid);
  const result = await autocannon(options);
  const after = cpuSeconds(pid);
  const spent = before === undefined || after === undefined ? undefined : after - before;
  const figures: RunFigures = {
    reqPerSec: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    cpuUsPerRequest: spent === undefined ? undefined : (spent * 1e6) / result.requests.total,
  };
  return { result, figures };
}

/** POSTs `body` through `agent` (keep-alive) and answers the status and text of the answer. */
export function postKeepAlive(
  agent: http.Agent,
  url: string | URL,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
