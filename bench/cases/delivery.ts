// Webhook delivery: throughput, latency and the delivery guarantee, on the bench's daemon.
//
// Webhook delivery (after the HTTP scenarios, on the same daemon): a receiver in a child process
// (bench/webhook-receiver.ts, so that its arrival times do not wait on this process's event
// loop) is subscribed to agent.created through POST /v1/webhooks. This process publishes
// BENCH_DELIVERY_EVENTS events through the control channel (POST /trpc/events.trigger, as `svc
// events trigger` does, BENCH_DELIVERY_CONCURRENCY requests in flight) and records when each
// publish was acknowledged; the receiver records when each delivery arrived (per X-Svc-Event-Id).
// Both clocks are performance.timeOrigin + performance.now() (wall-clock ms). A warm-up of up to
// 500 events, delivered and then forgotten, comes first; then BENCH_ROUNDS rounds of the events,
// whose figures are the median of the rounds' (the p99 of one round of a saturated machine's
// queueing varied 11-96 ms over 14 runs of the same code), counts their sum. Figures:
//   events published/s = events / (last acknowledgement - first publish request).
//   deliveries/s (sustained) = deliveries / (last arrival - first arrival); floor
//   FLOORS.deliveriesPerSecond (bench/floors.ts).
//   latency = first arrival of an event - its publish acknowledgement; p50, p99, max and min
//   (informational: a saturated closed loop's p99 is its queueing, 11-96 ms over 14 runs of the
//   same code, so it cannot guard a floor; the paced rounds below show latency at a set rate). It can be negative: the daemon may send the delivery before this process has
//   read the acknowledgement (which waits its turn on this process's event loop), so it is a
//   lower bound. latency from the publish request (sent -> first arrival) adds the publish round
//   trip: an upper bound. The true delivery latency lies between the two.
//   delivery: exactly once (every event arrived, none twice), at least once (duplicates, which
//   the contract allows) or missing (FAIL: events not arrived after 30 s without any arrival).
//   latency at a paced 3000/s (informational): the closed-loop run above publishes as fast as
//   the daemon acknowledges, so it delivers at the most the machine can take (above the target
//   rate) and its p99 includes the queueing of a saturated machine. Here events are published
//   on a fixed schedule at the target rate (an open loop: event i is sent i / 3000 s after the
//   first, acknowledged or not), one warm-up round then BENCH_DELIVERY_PACED_ROUNDS (3) rounds
//   of BENCH_DELIVERY_PACED_SECONDS (5) each; ack -> first arrival p99 per round and their
//   median. "sent late" counts sends this process made over 5 ms behind schedule (its own
//   event loop was busy: the figure then undercounts the rate).
//   last arrival - last ack: how far delivery trailed publishing at the end (a growing backlog
//   shows here). daemon cpu ms/event: the daemon's CPU time over the measured run (publishing
//   and delivering) per event; 1000 events/s on one core needs it under 1 ms.
//   backlog drain (informational, no target): delivery capacity when the daemon is not also
//   taking publishes. The same number of events again, whose first attempts the receiver
//   refuses (503) so that each waits for its retry a minute later; then the sandbox clock is
//   moved past all the retries (clock.advance, which fires what became due) and the receiver
//   times the arrivals: deliveries / (last arrival - first arrival), and how long after the
//   clock moved the last one came. The daemon clock stays moved; nothing runs after it.
//
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  api,
  cpuSeconds,
  median,
  percentile,
  settings,
  startReceiver,
  stopChild,
  table,
  wallNow,
  type BenchCase,
  type Daemon,
  type ReceiverAnswer,
  type ReceiverProcess,
  type DaemonContext,
} from '../harness.js';
import { describeFloor, FLOORS, holds } from '../floors.js';
import { postKeepAlive } from '../load.js';

/** Events published, delivered and forgotten before the measured run (JIT, connections). */
const DELIVERY_WARMUP_EVENTS = 500;
/** The wait for outstanding deliveries ends after this long without a new arrival. */
const DELIVERY_IDLE_MS = 30_000;
/** After the last expected arrival, how long to keep listening for duplicates. */
const DELIVERY_GRACE_MS = 500;
/** The paced rounds' publish rate (the first target, before the floors were measured). */
const DELIVERY_PACED_PER_SECOND = 3000;

interface Published {
  /** Event id -> when its publish was acknowledged (wall-clock ms). */
  acks: Map<string, number>;
  /** Event id -> when its publish request was sent (wall-clock ms). */
  sends: Map<string, number>;
  firstSent: number;
  lastAck: number;
}

/** Keep-alive connections for the publisher: fetch costs this process more CPU per request
 * than the daemon spends publishing, and the publisher shares the machine with the daemon. */
const publishAgent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/** One agent.created event published through the control channel (what `svc events trigger` does). */
async function publishOne(
  ctx: DaemonContext,
  n: number,
): Promise<{ id: string; sentAt: number; at: number }> {
  const sentAt = wallNow();
  const { status, text } = await postKeepAlive(
    publishAgent,
    `${ctx.url}/trpc/events.trigger`,
    { authorization: `Bearer ${ctx.controlToken()}`, 'content-type': 'application/json' },
    JSON.stringify({ type: 'agent.created', data: { n } }),
  );
  const at = wallNow();
  if (status !== 200) throw new Error(`events.trigger answered ${status}: ${text.slice(0, 300)}`);
  const { id } = (JSON.parse(text) as { result: { data: { id: string } } }).result.data;
  return { id, sentAt, at };
}

/** An empty record of publishes, its clock started now. */
function startPublishing(): Published {
  return { acks: new Map(), sends: new Map(), firstSent: wallNow(), lastAck: 0 };
}

/** Records one acknowledged publish. */
function recordAck(published: Published, ack: { id: string; sentAt: number; at: number }): void {
  published.acks.set(ack.id, ack.at);
  published.sends.set(ack.id, ack.sentAt);
  published.lastAck = Math.max(published.lastAck, ack.at);
}

function checkPublished(published: Published, count: number, failure: unknown): void {
  if (failure !== undefined) {
    throw new Error(
      `publishing events failed: ${failure instanceof Error ? failure.message : String(failure)}`,
    );
  }
  if (published.acks.size !== count) {
    throw new Error(`publishing ${count} events gave ${published.acks.size} distinct event ids`);
  }
}

/**
 * Publishes `count` agent.created events, `concurrency` (settings.deliveryConcurrency) requests
 * in flight (a closed loop: each publisher sends its next event once the last is acknowledged).
 */
export async function publishEvents(
  ctx: DaemonContext,
  count: number,
  offset: number,
  concurrency = settings.deliveryConcurrency,
) {
  const published = startPublishing();
  let next = 0;
  let failure: unknown;
  const worker = async () => {
    while (next < count && failure === undefined) {
      const n = offset + next;
      next += 1;
      try {
        recordAck(published, await publishOne(ctx, n));
      } catch (error) {
        failure ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, () => worker()));
  checkPublished(published, count, failure);
  return published;
}

/**
 * Publishes `count` events at `rate` per second on a fixed schedule (an open loop: event i is
 * sent at i / rate seconds whether or not the earlier ones were acknowledged), so that the
 * latency is measured at that rate and not at the most the daemon can take. `late` counts the
 * sends this process made over 5 ms behind schedule (its own event loop was busy).
 */
async function publishPaced(ctx: DaemonContext, count: number, rate: number, offset: number) {
  const published = startPublishing();
  let failure: unknown;
  let late = 0;
  const inFlight: Promise<void>[] = [];
  for (let index = 0; index < count && failure === undefined; index += 1) {
    const wait = published.firstSent + (index * 1000) / rate - wallNow();
    if (wait >= 1) await sleep(wait);
    else if (wait < -5) late += 1;
    inFlight.push(
      publishOne(ctx, offset + index).then(
        (ack) => recordAck(published, ack),
        (error: unknown) => void (failure ??= error),
      ),
    );
  }
  await Promise.all(inFlight);
  checkPublished(published, count, failure);
  return { published, late };
}

/**
 * Waits until the receiver's count (by default: distinct events arrived) reaches `expected`,
 * or DELIVERY_IDLE_MS passed without it moving.
 */
export async function waitForDeliveries(
  receiver: ReceiverProcess,
  expected: number,
  count: (status: ReceiverAnswer<'status'>) => number = (status) => status.unique,
): Promise<void> {
  let last = -1;
  let changedAt = Date.now();
  for (;;) {
    const reached = count(await receiver.ask('status'));
    if (reached >= expected) return;
    if (reached !== last) {
      last = reached;
      changedAt = Date.now();
    } else if (Date.now() - changedAt > DELIVERY_IDLE_MS) {
      return;
    }
    await sleep(50);
  }
}

/** One closed-loop round: `events` published as fast as acknowledged, and their deliveries. */
export interface ClosedLoopRound {
  events: number;
  publishedPerSecond: number;
  /** Arrivals of published events, duplicates included. */
  arrivals: number;
  duplicates: number;
  missing: number;
  /** Arrivals naming an event this run did not publish, or no event at all. */
  unexpected: number;
  /** undefined when fewer than two arrivals. */
  deliveriesPerSecond: number | undefined;
  /** Publish acknowledgement -> first arrival, ms; undefined when nothing arrived. */
  latency: { p50: number; p99: number; max: number; min: number } | undefined;
  /**
   * Publish request sent -> first arrival, ms: an upper bound of the delivery latency (it adds
   * the publish request), where the figure above can be a lower one (the acknowledgement may
   * be read after the delivery arrived).
   */
  fromSend: { p50: number; p99: number } | undefined;
  /** Last arrival - last acknowledgement, ms: how far delivery trailed publishing. */
  trailMs: number | undefined;
  /** The daemon's CPU seconds over the round (publishing and delivering). */
  daemonCpuSeconds: number | undefined;
}

/**
 * The closed-loop rounds read together: counts summed over the rounds (events, arrivals,
 * duplicates, missing), rates and latencies the median of the rounds' (max the largest, min the
 * smallest), CPU per event over all of them.
 */
type DeliveryResult = Omit<ClosedLoopRound, 'daemonCpuSeconds'> & {
  rounds: ClosedLoopRound[];
  daemonCpuMsPerEvent: number | undefined;
  paced: PacedResult;
  drain: DrainResult;
};

/** One round published at a fixed rate: ack -> first arrival, ms. */
interface PacedRound {
  delivered: number;
  events: number;
  p50: number | undefined;
  p99: number | undefined;
  max: number | undefined;
  /** Sends this process made over 5 ms behind schedule. */
  late: number;
}

interface PacedResult {
  rate: number;
  rounds: PacedRound[];
  /** Events published, warm-up included. */
  published: number;
  /** The median of the rounds' p99 (undefined if a round had no arrival). */
  p99: number | undefined;
}

/** The backlog drain: `events` retries made due at once by moving the sandbox clock. */
interface DrainResult {
  /** Backlog events published. */
  events: number;
  /** Distinct backlog events delivered. */
  delivered: number;
  /** Arrivals / (last arrival - first arrival); undefined when fewer than two arrivals. */
  deliveriesPerSecond: number | undefined;
  /** Clock moved -> last arrival, ms. */
  allInMs: number | undefined;
}

/** The delivery schedule's first retry comes this long after a failed first attempt. */
const FIRST_RETRY_MS = 60_000;
const DRAIN_SETTLE_MS = 1_000;

/**
 * Delivery capacity without publishing alongside: publishes `events` more events whose first
 * attempts the receiver refuses (503), so that each waits for its retry a minute later, then
 * moves the sandbox clock past all the retries (clock.advance, which fires what became due)
 * and times the arrivals.
 */
async function runDrain(
  ctx: Daemon,
  receiver: ReceiverProcess,
  events: number,
  offset: number,
): Promise<DrainResult> {
  await receiver.ask('reset');
  await receiver.ask('refuse');
  const backlog = await publishEvents(ctx, events, offset);
  await waitForDeliveries(receiver, events, (status) => status.refused);
  // The daemon stores each retry (due a minute after the attempt, on its clock) only once it
  // has read the refusal: give the last ones time to be stored before the clock moves.
  await sleep(DRAIN_SETTLE_MS);
  await receiver.ask('reset');
  await receiver.ask('accept');
  const advanceMs = FIRST_RETRY_MS + Math.ceil(wallNow() - backlog.firstSent) + 5_000;
  const movedAt = wallNow();
  // Handled at once, so that a failure is reported here and not as an unhandled rejection.
  const advanced = ctx.control('clock.advance', { ms: advanceMs }, 'mutation').then(
    () => undefined,
    (error: unknown) => error,
  );
  await waitForDeliveries(receiver, events);
  const advanceError = await advanced;
  if (advanceError !== undefined) {
    throw new Error(
      `clock.advance failed: ${advanceError instanceof Error ? advanceError.message : String(advanceError)}`,
    );
  }
  const { firstArrival, arrivals, firstAt, lastAt } = arrivalsOf(
    await receiver.ask('report'),
    backlog,
  );
  return {
    events,
    delivered: firstArrival.size,
    deliveriesPerSecond: arrivals > 1 ? (arrivals * 1000) / (lastAt - firstAt) : undefined,
    allInMs: arrivals ? lastAt - movedAt : undefined,
  };
}

/** The receiver's report read against what this run published. */
export function arrivalsOf(report: ReceiverAnswer<'report'>, published: Pick<Published, 'acks'>) {
  const firstArrival = new Map<string, number>();
  let duplicates = 0;
  let unexpected = report.withoutId;
  let arrivals = 0;
  let firstAt = Infinity;
  let lastAt = -Infinity;
  report.ids.forEach((id, index) => {
    const at = report.times[index]!;
    if (!published.acks.has(id)) {
      unexpected += 1;
      return;
    }
    arrivals += 1;
    firstAt = Math.min(firstAt, at);
    lastAt = Math.max(lastAt, at);
    if (firstArrival.has(id)) duplicates += 1;
    else firstArrival.set(id, at);
  });
  return { firstArrival, duplicates, unexpected, arrivals, firstAt, lastAt };
}

/** First arrival - `from` (the acknowledgement or the send) of each event, ms, sorted. */
function sortedLatencies(firstArrival: Map<string, number>, from: Map<string, number>): number[] {
  const latencies = [...firstArrival].map(([id, at]) => at - from.get(id)!);
  return latencies.sort((a, b) => a - b);
}

/**
 * Latency at the target rate: settings.deliveryPacedRounds rounds of events published at
 * DELIVERY_PACED_PER_SECOND on a fixed schedule (publishPaced) for deliveryPacedSeconds each,
 * after one round of warm-up at that rate. The closed-loop run above publishes as fast as the
 * daemon acknowledges, so its deliveries run at the most the machine can take (above the
 * target rate) and its latency includes the queueing that saturation brings.
 */
async function runPaced(
  ctx: Daemon,
  receiver: ReceiverProcess,
  offset: number,
): Promise<PacedResult> {
  const rate = DELIVERY_PACED_PER_SECOND;
  const count = Math.round(rate * settings.deliveryPacedSeconds);
  const rounds: PacedRound[] = [];
  // Round 0 is the warm-up.
  for (let round = 0; round <= settings.deliveryPacedRounds; round += 1) {
    const warm = round === 0;
    process.stdout.write(
      `  webhook delivery: paced at ${rate}/s, ${warm ? 'warm-up' : `round ${round}/${settings.deliveryPacedRounds}`}, ${count} events ...`,
    );
    await receiver.ask('reset');
    const run = await publishPaced(ctx, count, rate, offset + round * count);
    await waitForDeliveries(receiver, count);
    const { firstArrival } = arrivalsOf(await receiver.ask('report'), run.published);
    const latencies = sortedLatencies(firstArrival, run.published.acks);
    const figures: PacedRound = {
      delivered: firstArrival.size,
      events: count,
      p50: latencies.length ? percentile(latencies, 50) : undefined,
      p99: latencies.length ? percentile(latencies, 99) : undefined,
      max: latencies.at(-1),
      late: run.late,
    };
    process.stdout.write(
      ` ${figures.delivered} delivered, p99 ${figures.p99?.toFixed(1) ?? '-'} ms` +
        `${run.late ? `, ${run.late} sent over 5 ms late` : ''}\n`,
    );
    if (!warm) rounds.push(figures);
  }
  const p99s = rounds.flatMap((round) => (round.p99 === undefined ? [] : [round.p99]));
  return {
    rate,
    rounds,
    published: (settings.deliveryPacedRounds + 1) * count,
    p99: p99s.length === rounds.length && p99s.length > 0 ? median(p99s) : undefined,
  };
}

/** One closed-loop round: publishes `events` events (publishEvents) and reads their arrivals. */
export async function runClosedLoop(
  ctx: Daemon,
  receiver: ReceiverProcess,
  events: number,
  offset: number,
): Promise<ClosedLoopRound> {
  await receiver.ask('reset');
  const cpuBefore = cpuSeconds(ctx.pid);
  const published = await publishEvents(ctx, events, offset);
  await waitForDeliveries(receiver, events);
  await sleep(DELIVERY_GRACE_MS);
  const cpuAfter = cpuSeconds(ctx.pid);
  const { firstArrival, duplicates, unexpected, arrivals, firstAt, lastAt } = arrivalsOf(
    await receiver.ask('report'),
    published,
  );
  const latencies = sortedLatencies(firstArrival, published.acks);
  const fromSend = sortedLatencies(firstArrival, published.sends);
  return {
    events,
    publishedPerSecond: (events * 1000) / (published.lastAck - published.firstSent),
    arrivals,
    duplicates,
    missing: events - firstArrival.size,
    unexpected,
    deliveriesPerSecond: arrivals > 1 ? (arrivals * 1000) / (lastAt - firstAt) : undefined,
    latency: latencies.length
      ? {
          p50: percentile(latencies, 50),
          p99: percentile(latencies, 99),
          max: latencies[latencies.length - 1]!,
          min: latencies[0]!,
        }
      : undefined,
    fromSend: fromSend.length
      ? { p50: percentile(fromSend, 50), p99: percentile(fromSend, 99) }
      : undefined,
    trailMs: arrivals ? lastAt - published.lastAck : undefined,
    daemonCpuSeconds:
      cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore,
  };
}

/** The median of the rounds' values, undefined if a round has none. */
function medianOf(rounds: ClosedLoopRound[], pick: (round: ClosedLoopRound) => number | undefined) {
  const values = rounds.map(pick);
  return values.every((value) => value !== undefined) ? median(values) : undefined;
}

/** The closed-loop rounds read together (see DeliveryResult). */
function combineRounds(
  rounds: ClosedLoopRound[],
): Omit<DeliveryResult, 'rounds' | 'paced' | 'drain'> {
  const sum = (pick: (round: ClosedLoopRound) => number) =>
    rounds.reduce((total, round) => total + pick(round), 0);
  const latencies = rounds.every((round) => round.latency) ? rounds.map((r) => r.latency!) : [];
  const sends = rounds.every((round) => round.fromSend) ? rounds.map((r) => r.fromSend!) : [];
  const daemonCpu = rounds.every((round) => round.daemonCpuSeconds !== undefined)
    ? sum((round) => round.daemonCpuSeconds!)
    : undefined;
  const events = sum((round) => round.events);
  return {
    events,
    publishedPerSecond: median(rounds.map((round) => round.publishedPerSecond)),
    arrivals: sum((round) => round.arrivals),
    duplicates: sum((round) => round.duplicates),
    missing: sum((round) => round.missing),
    unexpected: sum((round) => round.unexpected),
    deliveriesPerSecond: medianOf(rounds, (round) => round.deliveriesPerSecond),
    latency: latencies.length
      ? {
          p50: median(latencies.map((latency) => latency.p50)),
          p99: median(latencies.map((latency) => latency.p99)),
          max: Math.max(...latencies.map((latency) => latency.max)),
          min: Math.min(...latencies.map((latency) => latency.min)),
        }
      : undefined,
    fromSend: sends.length
      ? {
          p50: median(sends.map((send) => send.p50)),
          p99: median(sends.map((send) => send.p99)),
        }
      : undefined,
    trailMs: medianOf(rounds, (round) => round.trailMs),
    daemonCpuMsPerEvent: daemonCpu === undefined ? undefined : (daemonCpu * 1000) / events,
  };
}

async function runDelivery(ctx: Daemon): Promise<DeliveryResult> {
  const receiver = await startReceiver();
  try {
    await api(ctx, 'POST', '/v1/webhooks', { url: receiver.url, events: ['agent.created'] });
    const warmup = Math.min(DELIVERY_WARMUP_EVENTS, settings.deliveryEvents);
    process.stdout.write(`  webhook delivery: warm-up, ${warmup} events ...`);
    await publishEvents(ctx, warmup, 0);
    await waitForDeliveries(receiver, warmup);
    const warm = await receiver.ask('status');
    await receiver.ask('reset');
    process.stdout.write(` ${warm.unique} delivered\n`);

    const events = settings.deliveryEvents;
    const rounds: ClosedLoopRound[] = [];
    for (let round = 1; round <= settings.rounds; round += 1) {
      process.stdout.write(
        `  webhook delivery: ${events} events (round ${round}/${settings.rounds}) ...`,
      );
      const figures = await runClosedLoop(ctx, receiver, events, warmup + (round - 1) * events);
      rounds.push(figures);
      process.stdout.write(
        ` ${figures.publishedPerSecond.toFixed(0)} published/s, ` +
          `${figures.deliveriesPerSecond?.toFixed(0) ?? '-'} deliveries/s, ` +
          `p99 ${figures.latency?.p99.toFixed(1) ?? '-'} ms\n`,
      );
    }
    const closedLoop = rounds.length * events;

    const paced = await runPaced(ctx, receiver, warmup + closedLoop);
    const drainOffset = warmup + closedLoop + paced.published;
    process.stdout.write(`  webhook delivery: backlog drain, ${events} events ...`);
    const drain = await runDrain(ctx, receiver, events, drainOffset);
    process.stdout.write(
      ` ${drain.delivered} delivered, ${drain.deliveriesPerSecond?.toFixed(0) ?? '-'} deliveries/s\n`,
    );
    return { ...combineRounds(rounds), rounds, paced, drain };
  } finally {
    await stopChild(receiver.child);
  }
}

function deliveryGuarantee(result: DeliveryResult): { text: string; ok: boolean } {
  const extra = result.unexpected ? `, ${result.unexpected} unexpected request(s)` : '';
  if (result.missing > 0) {
    return {
      text: `${result.missing} of ${result.events} missing, ${result.duplicates} duplicate(s)${extra}`,
      ok: false,
    };
  }
  if (result.duplicates > 0) {
    return { text: `at least once (${result.duplicates} duplicate(s))${extra}`, ok: true };
  }
  return { text: `exactly once (${result.events}/${result.events})${extra}`, ok: true };
}

function deliveryVerdicts(result: DeliveryResult) {
  return {
    rate: holds(FLOORS.deliveriesPerSecond, result.deliveriesPerSecond ?? 0),
    guarantee: deliveryGuarantee(result).ok,
  };
}

function printDelivery(result: DeliveryResult) {
  console.log(
    `\nWebhook delivery (${result.rounds.length} round(s) of ${settings.deliveryEvents} agent.created ` +
      `events published through the control channel, ${settings.deliveryConcurrency} in flight; ` +
      `medians of the rounds; one webhook; receiver in a child process)\n`,
  );
  const verdicts = deliveryVerdicts(result);
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
  const ms = (value: number | undefined) => (value === undefined ? '-' : value.toFixed(1));
  const guarantee = deliveryGuarantee(result);
  /** The median and, when there are several rounds, each round's value. */
  const perRound = (value: string, pick: (round: ClosedLoopRound) => string) =>
    result.rounds.length > 1 ? `${value} (${result.rounds.map(pick).join(' / ')})` : value;
  console.log(
    table(
      ['figure', 'value', 'target', 'verdict'],
      [
        ['events published/s', result.publishedPerSecond.toFixed(0), '', ''],
        [
          'deliveries/s (sustained)',
          perRound(
            result.deliveriesPerSecond?.toFixed(0) ?? '-',
            (round) => round.deliveriesPerSecond?.toFixed(0) ?? '-',
          ),
          describeFloor(FLOORS.deliveriesPerSecond),
          verdict(verdicts.rate),
        ],
        ['latency p50 ms (publish ack -> receipt)', ms(result.latency?.p50), '', ''],
        [
          'latency p99 ms (publish ack -> receipt)',
          perRound(ms(result.latency?.p99), (round) => ms(round.latency?.p99)),
          '',
          '',
        ],
        ['latency max ms', ms(result.latency?.max), '', ''],
        ['latency min ms', ms(result.latency?.min), '', ''],
        ['latency p50 ms (publish request -> receipt)', ms(result.fromSend?.p50), '', ''],
        ['latency p99 ms (publish request -> receipt)', ms(result.fromSend?.p99), '', ''],
        [
          `latency p99 ms at a paced ${result.paced.rate}/s (informational: median of rounds)`,
          `${ms(result.paced.p99)} (${result.paced.rounds.map((round) => ms(round.p99)).join(' / ')})`,
          '',
          '',
        ],
        [
          'paced: p50 ms, max ms, delivered, sent late (per round)',
          result.paced.rounds
            .map(
              (round) =>
                `${ms(round.p50)}, ${ms(round.max)}, ${round.delivered}/${round.events}, ${round.late}`,
            )
            .join(' / '),
          '',
          '',
        ],
        ['last arrival - last ack ms', ms(result.trailMs), '', ''],
        ['daemon cpu ms/event', result.daemonCpuMsPerEvent?.toFixed(2) ?? '-', '', ''],
        [
          'backlog drain deliveries/s (informational)',
          result.drain.deliveriesPerSecond?.toFixed(0) ?? '-',
          '',
          '',
        ],
        [
          'backlog drain: delivered, clock moved -> last ms',
          `${result.drain.delivered}/${result.drain.events}, ${ms(result.drain.allInMs)}`,
          '',
          '',
        ],
        ['delivery', guarantee.text, 'at least once', verdict(verdicts.guarantee)],
      ],
    ),
  );
}

const deliveryCase: BenchCase = {
  order: 20,
  needs: 'servers',
  describe: () =>
    `webhook delivery: ${settings.rounds} round(s) of ${settings.deliveryEvents} events after a warm-up of ` +
    `${Math.min(DELIVERY_WARMUP_EVENTS, settings.deliveryEvents)}, ` +
    `${settings.deliveryConcurrency} publish requests in flight`,
  async run(servers) {
    const result = await runDelivery(servers!.daemon);
    return {
      print: () => printDelivery(result),
      missed: Object.values(deliveryVerdicts(result)).filter((ok) => !ok).length,
    };
  },
};

export default deliveryCase;
