// The OAuth bench case: token endpoint throughput on the refresh grant, and authenticated
// GET /v1/auth/me with an OAuth access token versus an API key in the same run (target: the
// token path within 10% of the key path, i.e. ratio >= 0.9).
//
// benchOAuth(ctx, settings) runs on a daemon the harness started (bench/run.ts starts it with
// SVC_ENTERPRISE_RATE_MULTIPLIER=1000000, so the enterprise default workspace never hits the
// token endpoint's 20/minute either; the limiter still runs) and returns the figures and the
// printed report. It registers an app over the control channel, gets codes through the real
// consent page (GET the page with its cookie, POST the form from the page's origin) and
// exchanges them with PKCE, so the daemon's state is what a real integration leaves.
//
// /auth/me: autocannon loads the same path with the two credentials, alternating which goes
// first each round, warm-up then measured run, like the other HTTP scenarios. ratio = token
// req/s / key req/s; the CPU ratio (key µs/req / token µs/req) is the steadier figure on a busy
// machine.
//
// Refresh: autocannon cannot send a refresh grant twice (each answer rotates the token), so
// `connections` loops each hold their own grant and post grant_type=refresh_token with the token
// the previous answer gave, over keep-alive connections, for the measured seconds after a
// warm-up. req/s = answers / seconds; p50/p99 of the round trip; every answer must be 200.
//
// Settings: BENCH_SECONDS, BENCH_WARMUP_SECONDS, BENCH_CONNECTIONS, BENCH_PIPELINING, BENCH_ROUNDS
// (as the HTTP scenarios).
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import {
  combineRounds,
  cpuSeconds,
  percentile,
  settings,
  table,
  type BenchCase,
  type RunFigures,
  roundOrder,
} from '../harness.js';
import { loadWithCpu, postKeepAlive } from '../load.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** What the case needs from the harness's daemon (bench/run.ts's DaemonContext has all of it). */
export interface OAuthBenchContext {
  url: string;
  /** The daemon process, whose CPU time is read around each run (Linux). */
  pid: number;
  /** An sk_test_ key (any scope) in the default workspace: the key side of the comparison. */
  key: string;
  /** Calls a control-channel (tRPC) procedure as the operator. */
  control(procedure: string, input?: unknown, kind?: 'query' | 'mutation'): Promise<unknown>;
}

export interface OAuthBenchSettings {
  seconds: number;
  warmupSeconds: number;
  connections: number;
  pipelining: number;
  rounds: number;
}

export interface OAuthBenchResult {
  me: { apiKey: RunFigures; oauth: RunFigures; ratio: number; cpuRatio: number | undefined };
  refresh: RunFigures;
  /** token /auth/me within 10% of the key path. */
  pass: boolean;
  /** The report, ready to print. */
  report: string;
}

export const ME_TARGET_RATIO = 0.9;
const REDIRECT = 'http://localhost:3000/callback';

async function benchOAuth(
  ctx: OAuthBenchContext,
  settings: OAuthBenchSettings,
  log: (line: string) => void = (line) => process.stdout.write(line),
): Promise<OAuthBenchResult> {
  const app = (await ctx.control(
    'oauth.apps.create',
    {
      name: 'Bench integration',
      redirect_uris: [REDIRECT],
      scopes: ['agents:read', 'webhooks:read'],
    },
    'mutation',
  )) as { client_id: string; client_secret: string };
  const grants: TokenPair[] = [];
  for (let i = 0; i < settings.connections + 1; i += 1) grants.push(await authorize(ctx, app));
  const meGrant = grants.pop()!;

  const runs = { apiKey: [] as RunFigures[], oauth: [] as RunFigures[] };
  for (let round = 0; round < settings.rounds; round += 1) {
    const order = roundOrder(['apiKey', 'oauth'] as const, round);
    for (const side of order) {
      const credential = side === 'apiKey' ? ctx.key : meGrant.access_token;
      log(
        `  GET /v1/auth/me with ${side === 'apiKey' ? 'an API key' : 'an OAuth token'} (round ${round + 1}/${settings.rounds}) ...`,
      );
      await loadMe(ctx, credential, settings, settings.warmupSeconds);
      const figures = await loadMe(ctx, credential, settings, settings.seconds);
      runs[side].push(figures);
      log(
        ` ${figures.reqPerSec.toFixed(0)} req/s, p99 ${figures.p99} ms, ${figures.cpuUsPerRequest?.toFixed(0) ?? '-'} CPU µs/req\n`,
      );
    }
  }
  const apiKey = combineRounds(runs.apiKey);
  const oauth = combineRounds(runs.oauth);

  log('  POST /v1/oauth/token (refresh grant, rotating) ...');
  await refreshLoops(ctx, app, grants, settings.connections, settings.warmupSeconds);
  const refresh = await refreshLoops(ctx, app, grants, settings.connections, settings.seconds);
  log(` ${refresh.reqPerSec.toFixed(0)} req/s, p99 ${refresh.p99.toFixed(1)} ms\n`);

  const ratio = oauth.reqPerSec / apiKey.reqPerSec;
  const cpuRatio =
    apiKey.cpuUsPerRequest && oauth.cpuUsPerRequest
      ? apiKey.cpuUsPerRequest / oauth.cpuUsPerRequest
      : undefined;
  const pass = ratio >= ME_TARGET_RATIO;
  const report = [
    'OAuth',
    table(
      ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'cpu µs/req'],
      [
        ['GET /v1/auth/me, API key', ...figureCells(apiKey)],
        ['GET /v1/auth/me, OAuth token', ...figureCells(oauth)],
        ['POST /v1/oauth/token (refresh)', ...figureCells(refresh)],
      ],
    ),
    `  token / key on /auth/me: ${ratio.toFixed(2)} req/s ratio` +
      (cpuRatio === undefined ? '' : `, ${cpuRatio.toFixed(2)} cpu ratio`) +
      ` (target >= ${ME_TARGET_RATIO}): ${pass ? 'PASS' : 'FAIL'}`,
  ].join('\n');
  return { me: { apiKey, oauth, ratio, cpuRatio }, refresh, pass, report };
}

interface TokenPair {
  access_token: string;
  refresh_token: string;
}

/** The real front channel: the consent page with its cookie, the form, the PKCE exchange. */
async function authorize(
  ctx: OAuthBenchContext,
  app: { client_id: string; client_secret: string },
): Promise<TokenPair> {
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(`${ctx.url}/oauth/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: app.client_id,
    redirect_uri: REDIRECT,
    scope: 'agents:read webhooks:read',
    state: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  const page = await fetch(url);
  const html = await page.text();
  if (page.status !== 200) throw new Error(`consent page: ${page.status} ${html.slice(0, 300)}`);
  const cookie = page.headers.getSetCookie()[0]?.split(';')[0] ?? '';
  const form = new URLSearchParams();
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    form.set(
      match[1]!,
      match[2]!.replace(/&#(\d+);/g, (_m, c: string) => String.fromCharCode(Number(c))),
    );
  }
  form.set('workspace_id', /<option value="([^"]+)" selected>/.exec(html)?.[1] ?? '');
  form.set('decision', 'approve');
  const answer = await fetch(`${ctx.url}/oauth/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: ctx.url },
    body: form.toString(),
    redirect: 'manual',
  });
  const code = new URL(answer.headers.get('location') ?? 'x:/').searchParams.get('code');
  if (!code) throw new Error(`consent: ${answer.status} ${await answer.text()}`);
  const token = await fetch(`${ctx.url}/v1/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basic(app),
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    }).toString(),
  });
  const body = (await token.json()) as TokenPair;
  if (token.status !== 200)
    throw new Error(`code exchange: ${token.status} ${JSON.stringify(body)}`);
  return body;
}

function basic(app: { client_id: string; client_secret: string }): string {
  return `Basic ${Buffer.from(`${app.client_id}:${app.client_secret}`).toString('base64')}`;
}

async function loadMe(
  ctx: OAuthBenchContext,
  credential: string,
  settings: OAuthBenchSettings,
  seconds: number,
): Promise<RunFigures> {
  const { result, figures } = await loadWithCpu(ctx.pid, {
    url: `${ctx.url}/v1/auth/me`,
    headers: { authorization: `Bearer ${credential}` },
    connections: settings.connections,
    pipelining: settings.pipelining,
    duration: seconds,
  });
  if (result.errors > 0 || result.timeouts > 0 || result.non2xx > 0 || result['2xx'] === 0) {
    throw new Error(
      `GET /v1/auth/me: not every answer was 2xx (non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts}); the figures would mean nothing.`,
    );
  }
  return figures;
}

/** `loops` clients each refreshing their own grant back to back for `seconds`. */
async function refreshLoops(
  ctx: OAuthBenchContext,
  app: { client_id: string; client_secret: string },
  grants: TokenPair[],
  loops: number,
  seconds: number,
): Promise<RunFigures> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: loops });
  const target = new URL(`${ctx.url}/v1/oauth/token`);
  const authorization = basic(app);
  const latencies: number[] = [];
  const cpuBefore = cpuSeconds(ctx.pid);
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    grants.slice(0, loops).map(async (grant) => {
      while (performance.now() < deadline) {
        const body = `grant_type=refresh_token&refresh_token=${grant.refresh_token}`;
        const sent = performance.now();
        const answer = await postKeepAlive(agent, target, { ...FORM, authorization }, body);
        latencies.push(performance.now() - sent);
        if (answer.status !== 200) {
          throw new Error(`refresh grant answered ${answer.status}: ${answer.text.slice(0, 300)}`);
        }
        grant.refresh_token = (JSON.parse(answer.text) as TokenPair).refresh_token;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const cpuAfter = cpuSeconds(ctx.pid);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    reqPerSec: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    requests: latencies.length,
    cpuUsPerRequest:
      cpuBefore === undefined || cpuAfter === undefined
        ? undefined
        : ((cpuAfter - cpuBefore) * 1e6) / latencies.length,
  };
}

function figureCells(figures: RunFigures): string[] {
  return [
    figures.reqPerSec.toFixed(0),
    figures.p50.toFixed(1),
    figures.p99.toFixed(1),
    figures.cpuUsPerRequest?.toFixed(0) ?? '-',
  ];
}

const oauthCase: BenchCase = {
  order: 16,
  needs: 'servers',
  describe: () =>
    `OAuth: POST /v1/oauth/token refresh grant, GET /v1/auth/me with a token vs an API key, ` +
    `${settings.connections} connections`,
  async run(servers) {
    const { daemon } = servers!;
    console.log('');
    const result = await benchOAuth(
      { url: daemon.url, pid: daemon.pid, key: daemon.key, control: daemon.control },
      settings,
    );
    return {
      print: () => console.log(`\n${result.report}`),
      missed: result.pass ? 0 : 1,
    };
  },
};

export default oauthCase;
