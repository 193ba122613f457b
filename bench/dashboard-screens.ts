// The first screen of each dashboard list page, timed as the page loads it: the data requests it
// sends on opening (app.js and web/pages/*.js), all at once, from the first byte out to the last
// answer's end. Loopback, so nearly all of it is the daemon's time.
import { performance } from 'node:perf_hooks';
import { median, percentile } from './harness.js';

/** A page and the data requests (paths under /ui/api, query included) of its first screen. */
export interface Screen {
  page: string;
  requests: string[];
}

/** What the bench knows of the stored data to name each page's requests. */
export interface ScreenIds {
  workflowId: string;
  runId: string;
  webhookId: string;
  deliveryId: string;
  /** An event type with no stored event: a filter that matches nothing must not scan. */
  absentType: string;
}

export const screens = (ids: ScreenIds): Screen[] => [
  { page: 'Overview', requests: ['/overview'] },
  { page: 'Workflows (last run, success rate)', requests: ['/workflows'] },
  { page: 'Workflow runs', requests: ['/workflows', '/runs?limit=25'] },
  { page: 'Workflow runs, failed only', requests: ['/workflows', '/runs?limit=25&status=failed'] },
  {
    page: 'A workflow (its runs, versions)',
    requests: [
      `/workflows/${ids.workflowId}`,
      `/runs?workflow_id=${ids.workflowId}&limit=10`,
      `/workflows/${ids.workflowId}/versions`,
    ],
  },
  { page: 'A run', requests: [`/runs/${ids.runId}`] },
  {
    page: 'Webhooks & deliveries',
    requests: ['/webhooks?limit=100', `/webhooks/${ids.webhookId}/deliveries?limit=20`],
  },
  {
    page: 'A delivery',
    requests: [
      `/webhooks/${ids.webhookId}/deliveries?limit=20`,
      `/webhooks/${ids.webhookId}/deliveries/${ids.deliveryId}`,
    ],
  },
  { page: 'Events', requests: ['/event-types', '/events?limit=30'] },
  {
    page: 'Events of a type with none',
    requests: ['/event-types', `/events?limit=30&type=${encodeURIComponent(ids.absentType)}`],
  },
  {
    page: 'Events of a prefix with none (type.*)',
    requests: [
      '/event-types',
      `/events?limit=30&type=${encodeURIComponent(`${ids.absentType.split('.')[0]}.*`)}`,
    ],
  },
  { page: 'Approvals', requests: ['/approvals?limit=50'] },
  { page: 'API keys', requests: ['/keys'] },
];

export interface ScreenTiming {
  page: string;
  median: number;
  p95: number;
}

/** Median and p95 of `samples` loads of each screen (after 2 unmeasured). */
export async function timeScreens(
  base: string,
  workspaceId: string,
  cookie: string,
  list: Screen[],
  samples: number,
): Promise<ScreenTiming[]> {
  const timings: ScreenTiming[] = [];
  for (const screen of list) {
    const urls = screen.requests.map(
      (path) => `${base}/ui/api${path}${path.includes('?') ? '&' : '?'}workspace=${workspaceId}`,
    );
    const measured: number[] = [];
    for (let i = 0; i < samples + 2; i += 1) {
      const started = performance.now();
      await Promise.all(
        urls.map(async (url) => {
          const response = await fetch(url, { headers: { cookie } });
          await response.arrayBuffer();
          if (!response.ok) throw new Error(`${screen.page}: ${url} answered ${response.status}`);
        }),
      );
      if (i >= 2) measured.push(performance.now() - started);
    }
    measured.sort((a, b) => a - b);
    timings.push({ page: screen.page, median: median(measured), p95: percentile(measured, 95) });
  }
  return timings;
}
