// The worker thread of OutboundHttp (http.ts): makes each call it is handed with HttpCaller and
// answers with its result, calls running concurrently.
import { parentPort, workerData } from 'node:worker_threads';
import { heapReleaser } from '../platform/memory-trim.js';
import { HttpCaller } from './http-caller.js';
import type { WorkerAnswer, WorkerCall } from './http.js';
import type { UrlPolicy } from './url-policy.js';

const releaseHeap = heapReleaser();

const caller = new HttpCaller(workerData as UrlPolicy);
const port = parentPort!;

port.on('message', (message: WorkerCall | 'trim') => {
  // The daemon is quiet after a burst: give the heap grown under load back (platform/memory-trim.ts).
  if (message === 'trim') return releaseHeap?.();
  const { id, call } = message;
  void caller
    .request(call)
    .then((result) => port.postMessage({ id, result } satisfies WorkerAnswer));
});
