// Sandbox stubs (svc agents stub add|list|clear): deterministic answers for tests. A stub
// matches an input by case-insensitive substring, or by /regex/flags (RE2, see domain/user-pattern.ts);
// the first match wins.
import { ERROR_CODES, type ErrorCode } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { StubInput } from '../../shared/schemas/agents.js';
import { toIso, type Clock } from '../time/clock.js';
import { ApiError } from '../domain/errors.js';
import type { BrainResult } from './brains/brain.js';
import {
  compileStubMatch,
  MAX_PATTERN_COST,
  PATTERN_COST_RULE,
  type StubMatcher,
} from '../domain/user-pattern.js';
import type { StubRepository, StubRow } from './stub.repository.js';
import type { StubView } from '../../shared/schemas/control-output.js';

export type Stub = StubView;

/** Stubs one agent may have. */
export const MAX_STUBS_PER_AGENT = 100;

export class StubService {
  /** Compiled matchers per agent, dropped when the agent's stubs change here (in team mode, checked against the store at each use). */
  private readonly cache = new Map<string, { row: StubRow; test: StubMatcher }[]>();

  constructor(
    private readonly repo: StubRepository,
    private readonly clock: Clock,
  ) {}

  add(agentId: string, input: StubInput): Stub {
    if (!input.result && !input.fail && !input.delay_ms) {
      throw new ApiError('invalid_parameter', 'A stub needs a result, a failure code or a delay.', {
        param: 'result',
      });
    }
    if (input.result && input.fail) {
      throw new ApiError(
        'invalid_parameter',
        'A stub either returns a result or fails, not both.',
        { param: 'fail' },
      );
    }
    if (input.fail && !(input.fail in ERROR_CODES)) {
      throw new ApiError(
        'invalid_parameter',
        `'${input.fail}' is not an error code (e.g. external_api_error, execution_timeout).`,
        { param: 'fail' },
      );
    }
    const { cost } = compileStubMatch(input.match);
    // Every execution of the agent tries its stubs in turn: their number and their patterns'
    // cost together bound that work.
    if (this.repo.list(agentId).length >= MAX_STUBS_PER_AGENT) {
      throw new ApiError(
        'conflict',
        `Agent ${agentId} has ${MAX_STUBS_PER_AGENT} stubs, the most an agent may have. Remove them with: svc agents stub clear ${agentId}`,
      );
    }
    const total = this.matchers(agentId).reduce((sum, matcher) => sum + matcher.test.cost, cost);
    if (total > MAX_PATTERN_COST) {
      throw new ApiError(
        'conflict',
        `Agent ${agentId}'s stub patterns would cost ${total} together and one agent's may cost at most ${MAX_PATTERN_COST} (${PATTERN_COST_RULE}). Match a substring, or remove stubs with: svc agents stub clear ${agentId}`,
      );
    }
    const row: StubRow = {
      id: newId('stub'),
      agent_id: agentId,
      match: input.match,
      result: input.result
        ? JSON.stringify({
            action: input.result.action ?? 'respond',
            output: input.result.output ?? '',
            confidence: input.result.confidence ?? 1,
          })
        : null,
      fail_code: input.fail ?? null,
      delay_ms: input.delay_ms ?? null,
      created_at: this.clock.now(),
    };
    this.repo.insert(row);
    this.cache.delete(agentId);
    return toStub(row);
  }

  list(agentId: string): Stub[] {
    return this.repo.list(agentId).map(toStub);
  }

  clear(agentId: string): number {
    this.cache.delete(agentId);
    return this.repo.clear(agentId);
  }

  match(agentId: string, input: string): Stub | undefined {
    const found = this.matchers(agentId).find((matcher) => matcher.test(input));
    return found && toStub(found.row);
  }

  /**
   * The agent's stubs, compiled. A pattern stored before today's rules (one RE2 cannot run, one
   * over the cost, or one past what the agent's patterns may cost together, in the order they
   * were added) never matches, rather than failing or stalling every execution.
   */
  private matchers(agentId: string): { row: StubRow; test: StubMatcher }[] {
    const cached = this.cache.get(agentId);
    if (cached && this.repo.keepsRows) return cached;
    // Team mode: the agent's stubs as stored now (another daemon may have added or cleared
    // some); compiled again only when they changed (a stub is never edited, only added or
    // cleared, so its id says which it is).
    const rows = this.repo.list(agentId);
    if (cached && sameIds(cached, rows)) return cached;
    let budget = MAX_PATTERN_COST;
    const matchers = rows.map((row) => {
      const test = storedMatcher(row.match, budget);
      budget -= test.cost;
      return { row, test };
    });
    this.cache.set(agentId, matchers);
    return matchers;
  }
}

const NEVER: StubMatcher = Object.assign(() => false, { cost: 0 });

function sameIds(matchers: readonly { row: StubRow }[], rows: readonly StubRow[]): boolean {
  return (
    matchers.length === rows.length &&
    matchers.every((matcher, i) => matcher.row.id === rows[i]!.id)
  );
}

/** A stored pattern's matcher, or NEVER when it cannot run or costs more than `budget`. */
function storedMatcher(match: string, budget: number): StubMatcher {
  try {
    const matcher = compileStubMatch(match);
    return matcher.cost <= budget ? matcher : NEVER;
  } catch {
    return NEVER;
  }
}

function toStub(row: StubRow): Stub {
  return {
    id: row.id,
    agent_id: row.agent_id,
    match: row.match,
    result: row.result ? (JSON.parse(row.result) as BrainResult) : null,
    fail: row.fail_code as ErrorCode | null,
    delay_ms: row.delay_ms,
    created_at: toIso(row.created_at),
  };
}
