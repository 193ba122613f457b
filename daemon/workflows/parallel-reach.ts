// A step is reached by at most one path while a parallel step runs. The engine gives each branch
// of a parallel step its own chain of activations and, once they have joined, goes on at the
// parallel step's next_step_id. A step that two of these can reach (two branches, or a branch and
// what follows the join) would run once for each: twice per run, steps_completed above
// steps_total, two calls to a webhook step's URL. Such a graph is refused when it is written.
//
// What counts, for a parallel step p:
// - each branch (config.steps) reaches everything its chain may lead to by any edge: next_step_id,
//   on_error, a condition's if_true/if_false, and nested parallel steps' branches and joins;
// - the continuation (p's next_step_id) reaches what runs after the join.
// These regions of p run independently, so two of them sharing a step is refused, whatever the
// conditions decide at run time. Inside one region, paths that meet (a condition's two targets
// converging, next_step_id and on_error leading to one step) are alternatives of one chain: that
// step still runs once. p's own on_error is not a region: a parallel step that fails has started
// no branch.
import { stepEdges, type StepEdge, type TypedStep } from '../../shared/schemas/steps.js';
import { ApiError } from '../domain/errors.js';

/** One region of a parallel step: a branch, or what follows its join. */
interface Region {
  root: string;
  /** How the parallel step leads to the root. */
  edge: StepEdge;
  afterJoin: boolean;
}

/** How a walk reached a step: from which step, by which edge. */
interface Hop {
  from: string;
  edge: StepEdge;
}

/** A step two regions of one parallel step reach, with the shortest path in each. */
export interface DoubleReach {
  step: string;
  parallel: string;
  /** Step ids from the parallel step to `step`, through the earlier region. */
  first: string[];
  /** Step ids from the parallel step to `step`, through the later region. */
  second: string[];
  /** Whether `second` starts at the parallel step's next_step_id, after its branches joined. */
  afterJoin: boolean;
  /** The last edge of `second` (the field a fix is likely to change). */
  hop: Hop;
}

/**
 * The first step reached twice while a parallel step runs (parallel steps in the order given,
 * their branches in config order, the continuation last), or undefined. The graph must have no
 * cycle (graph.ts checks that first).
 */
export function findDoubleReach(steps: readonly TypedStep[]): DoubleReach | undefined {
  const byId = new Map(steps.map((step) => [step.id, step]));
  const sets = new StepSets(steps);
  for (const step of steps) {
    if (step.type !== 'parallel') continue;
    const regions = regionsOf(step);
    // What the regions so far reach: a step found again belongs to two regions.
    const before = sets.empty();
    const reached: Uint32Array[] = [];
    for (const region of regions) {
      const reach = sets.reach(region.root);
      if (sets.overlap(reach, before)) {
        const second = shortestPaths(byId, step.id, region);
        // The nearest shared step: the first the breadth-first walk met.
        const shared = [...second.keys()].find((id) => sets.has(before, id))!;
        const earlier = regions[reached.findIndex((set) => sets.has(set, shared))]!;
        return {
          step: shared,
          parallel: step.id,
          first: pathTo(shortestPaths(byId, step.id, earlier), shared),
          second: pathTo(second, shared),
          afterJoin: region.afterJoin,
          hop: second.get(shared)!,
        };
      }
      sets.add(before, reach);
      reached.push(reach);
    }
  }
  return undefined;
}

function regionsOf(step: Extract<TypedStep, { type: 'parallel' }>): Region[] {
  const regions: Region[] = step.config.steps.map((root) => ({
    root,
    edge: { kind: 'branch', to: root },
    afterJoin: false,
  }));
  if (step.next_step_id) {
    regions.push({
      root: step.next_step_id,
      edge: { kind: 'next', to: step.next_step_id },
      afterJoin: true,
    });
  }
  return regions;
}

/**
 * Sets of a workflow's steps as bits (one per step, by position), and what each step reaches:
 * a union is a few word ORs, so a graph of 100 steps with wide parallel steps costs little.
 */
class StepSets {
  private readonly index: Map<string, number>;
  private readonly words: number;
  private readonly byId: ReadonlyMap<string, TypedStep>;
  private readonly memo = new Map<string, Uint32Array>();

  constructor(steps: readonly TypedStep[]) {
    this.index = new Map(steps.map((step, i) => [step.id, i]));
    this.words = Math.ceil(steps.length / 32);
    this.byId = new Map(steps.map((step) => [step.id, step]));
  }

  empty(): Uint32Array {
    return new Uint32Array(this.words);
  }

  has(set: Uint32Array, id: string): boolean {
    const i = this.index.get(id)!;
    return (set[i >>> 5]! & (1 << (i & 31))) !== 0;
  }

  overlap(a: Uint32Array, b: Uint32Array): boolean {
    return a.some((word, w) => (word & b[w]!) !== 0);
  }

  add(into: Uint32Array, from: Uint32Array): void {
    for (let w = 0; w < this.words; w++) into[w]! |= from[w]!;
  }

  /** The step and every step it may lead to, by any edge (memoised; the graph has no cycle). */
  reach(id: string): Uint32Array {
    let set = this.memo.get(id);
    if (set) return set;
    set = this.empty();
    const i = this.index.get(id)!;
    set[i >>> 5]! |= 1 << (i & 31);
    const step = this.byId.get(id);
    for (const edge of step ? stepEdges(step) : []) this.add(set, this.reach(edge.to));
    this.memo.set(id, set);
    return set;
  }
}

/** Breadth-first from the region's root: how each step it reaches was first reached. */
function shortestPaths(
  byId: ReadonlyMap<string, TypedStep>,
  parallel: string,
  region: Region,
): Map<string, Hop> {
  const hops = new Map<string, Hop>([[region.root, { from: parallel, edge: region.edge }]]);
  const queue = [region.root];
  for (let i = 0; i < queue.length; i++) {
    const step = byId.get(queue[i]!);
    for (const edge of step ? stepEdges(step) : []) {
      if (hops.has(edge.to)) continue;
      hops.set(edge.to, { from: step!.id, edge });
      queue.push(edge.to);
    }
  }
  return hops;
}

function pathTo(hops: ReadonlyMap<string, Hop>, id: string): string[] {
  const path = [id];
  // Ends at the parallel step, the one step of the path its regions do not reach (no cycles).
  for (let hop = hops.get(id); hop; hop = hops.get(hop.from)) path.unshift(hop.from);
  return path;
}

/**
 * Refuses a graph in which a parallel step reaches a step twice: 400 invalid_step_config naming
 * the step, the parallel step and both paths, at the field of the second path's last edge.
 */
export function checkParallelReach(steps: readonly TypedStep[]): void {
  const found = findDoubleReach(steps);
  if (!found) return;
  const { step, parallel, first, second, afterJoin, hop } = found;
  const at = `steps[${steps.findIndex((candidate) => candidate.id === hop.from)}]`;
  const how = afterJoin
    ? `inside its branches (${first.join(' -> ')}) and again after they have joined ` +
      `(${second.join(' -> ')}, from its next_step_id). ` +
      `A step of a parallel step's branches must not also follow its join: remove '${step}' ` +
      `from the branches or from what follows '${parallel}'.`
    : `${first.join(' -> ')} and ${second.join(' -> ')}. ` +
      `Branches run at the same time, so a step may be reached by only one branch: give each ` +
      `branch its own step, or make '${step}' follow the join (the parallel step's next_step_id) ` +
      'to run it once after every branch has ended.';
  throw new ApiError(
    'invalid_step_config',
    `Step '${step}' is reached twice while parallel step '${parallel}' runs: ${how}`,
    {
      param: `${at}.${fieldOf(steps, hop)}`,
      extras: { step_id: step, parallel_step_id: parallel, paths: [first, second] },
    },
  );
}

/** The field of a step that holds an edge (the param of a refusal). */
function fieldOf(steps: readonly TypedStep[], hop: Hop): string {
  switch (hop.edge.kind) {
    case 'next':
      return 'next_step_id';
    case 'on_error':
      return 'on_error';
    case 'if_true':
    case 'if_false':
      return `config.${hop.edge.kind}`;
    case 'branch': {
      const from = steps.find((step) => step.id === hop.from);
      const branches = from?.type === 'parallel' ? from.config.steps : [];
      return `config.steps[${branches.indexOf(hop.edge.to)}]`;
    }
  }
}
