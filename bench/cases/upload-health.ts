// /healthz latency while the daemon processes the heaviest knowledge upload the bench knows
// (a DOCX of 300,000 paragraphs, the issue-10 case that used to hold the event loop for 14 s):
// extraction runs in a worker thread, so the probes keep their idle latency. The issue sets no
// figure to reach, so this case reports and has no PASS/FAIL line. The upload ends in 413 (over the
// passages a document may keep) once its extraction has run: the work is the same. The percentiles are nearest-rank (the harness's).
import { performance } from 'node:perf_hooks';
import { buildDocx } from '../../test/helpers/documents.js';
import { healthzMs, percentile, type BenchCase, type DaemonContext } from '../harness.js';

interface UploadHealthResult {
  uploadStatus: number;
  uploadMs: number;
  probes: number;
  idleP50Ms: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

async function runUploadHealth(target: DaemonContext): Promise<UploadHealthResult> {
  const headers = { authorization: `Bearer ${target.key}`, 'x-tenant-id': target.workspaceId };
  const created = await fetch(`${target.url}/v1/agents`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Bench reader', ontology: 'retail-v1' }),
  });
  const agentId = ((await created.json()) as { data: { id: string } }).data.id;
  const idle: number[] = [];
  for (let i = 0; i < 50; i++) idle.push(await healthzMs(target.url));
  idle.sort((a, b) => a - b);
  if (!created.ok) throw new Error(`POST /v1/agents answered ${created.status}`);

  const form = new FormData();
  form.append('type', 'faq');
  const docx = buildDocx(Array.from({ length: 300_000 }, (_, i) => `Paragraph ${i}`));
  form.append('file', new Blob([new Uint8Array(docx)]), 'bench.docx');
  const started = performance.now();
  let done = false;
  const upload = fetch(`${target.url}/v1/agents/${agentId}/knowledge`, {
    method: 'POST',
    headers,
    body: form,
  }).then(async (response) => {
    await response.arrayBuffer();
    done = true;
    return { status: response.status, ms: performance.now() - started };
  });
  const during: number[] = [];
  while (!done) during.push(await healthzMs(target.url));
  const uploaded = await upload;
  // 413 is this document's expected answer (it extracts to more passages than a document may
  // keep), given only after the whole extraction ran; anything else means it did not run.
  if (uploaded.status !== 413 && (uploaded.status < 200 || uploaded.status > 299)) {
    throw new Error(
      `the knowledge upload answered ${uploaded.status}; the figures would mean nothing`,
    );
  }
  during.sort((a, b) => a - b);
  return {
    uploadStatus: uploaded.status,
    uploadMs: uploaded.ms,
    probes: during.length,
    idleP50Ms: percentile(idle, 50),
    p50Ms: percentile(during, 50),
    p99Ms: percentile(during, 99),
    maxMs: during.at(-1) ?? 0,
  };
}

function printUploadHealth(result: UploadHealthResult): void {
  const ms = (value: number) => value.toFixed(1);
  console.log(
    `\n/healthz during a knowledge upload (DOCX of 300,000 paragraphs, ${result.probes} sequential probes)\n\n` +
      `  upload answered ${result.uploadStatus} after ${ms(result.uploadMs)} ms\n` +
      `  /healthz ms: idle p50 ${ms(result.idleP50Ms)}; during the upload p50 ${ms(result.p50Ms)}, ` +
      `p99 ${ms(result.p99Ms)}, max ${ms(result.maxMs)}`,
  );
}

const uploadHealthCase: BenchCase = {
  order: 18,
  needs: 'servers',
  describe: () => '/healthz latency during a knowledge upload (DOCX of 300,000 paragraphs)',
  async run(servers) {
    const result = await runUploadHealth(servers!.daemon);
    return { print: () => printUploadHealth(result), missed: 0 };
  },
};

export default uploadHealthCase;
