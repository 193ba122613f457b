// Sandbox fault injection (svc faults): rules per workspace, stored (they survive a restart) and
// asked at the three points where a real outcome is produced: the outbound HTTP result
// (OutboundHttp), a workflow step's outcome (StepRunner) and an agent's answer (Thinker). A rule
// that hits makes that point produce the failure a real one would, marked with the rule's id;
// everything after it (retries, events, the delivery log) is the daemon's usual path.
//
// The store is the truth, for every daemon that serves the sandbox (team mode): a workspace's
// rules are kept in memory once read (a TeamCache: a rule added or removed on any daemon drops
// them on all), and the calls a rule has seen and hit are counted in the store, locked, so a
// --times or --attempts limit and a seeded share hold across daemons.
import { ERROR_CODES, type ErrorCode } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { FaultAdd, FaultView } from '../../shared/schemas/faults.js';
import {
  compileStubMatch,
  MAX_PATTERN_COST,
  PATTERN_COST_RULE,
  type StubMatcher,
} from '../domain/user-pattern.js';
import { toIso, type Clock } from '../time/clock.js';
import { ApiError, invalidParameter } from '../domain/errors.js';
import type { Alarms } from '../time/alarms.js';
import { TeamCache } from '../store/team-cache.js';
import { ALONE, type TeamNotices } from '../store/team-notices.js';
import type { FaultRepository, FaultRow } from './fault.repository.js';
import { decide, retired, targets, type FaultCall } from './fault-rules.js';

export type { FaultCall } from './fault-rules.js';

/** The fault a rule injects into one call. */
export interface InjectedFault {
  id: string;
  status: number | null;
  timeout: boolean;
  latencyMs: number | null;
  reset: boolean;
  fail: ErrorCode | null;
}

/** Whether a webhook, workflow (and step) or agent exists in a workspace (rules name real ones). */
export interface FaultTargets {
  webhook(workspaceId: string, id: string): void;
  workflowStep(workspaceId: string, workflowId: string, stepId: string): void;
  agent(workspaceId: string, id: string): void;
}

interface Rule {
  row: FaultRow;
  matches: StubMatcher | undefined;
}

const NEVER: StubMatcher = Object.assign(() => false, { cost: 0 });

/** What FaultService is built from (app/services.ts passes them by name). */
export interface FaultServiceDeps {
  repo: FaultRepository;
  clock: Clock;
  alarms: Alarms;
  /** Whether what a rule names exists (rules name real ones). */
  existing: FaultTargets;
  /** Production never injects: its rules are neither loaded nor accepted. */
  sandbox: boolean;
  log: { info(obj: object, msg: string): void };
  /** Team mode: tells the other daemons of the sandbox that a workspace's rules changed. */
  notices?: Pick<TeamNotices, 'notify' | 'on' | 'onResync'>;
}

export class FaultService {
  /** Rules per workspace, in creation order (the first rule that hits a call wins). */
  private readonly rules: TeamCache<Rule[]>;

  private readonly repo: FaultRepository;
  private readonly clock: Clock;
  private readonly alarms: Alarms;
  private readonly existing: FaultTargets;
  private readonly sandbox: boolean;
  private readonly log: { info(obj: object, msg: string): void };

  constructor(deps: FaultServiceDeps) {
    this.repo = deps.repo;
    this.clock = deps.clock;
    this.alarms = deps.alarms;
    this.existing = deps.existing;
    this.sandbox = deps.sandbox;
    this.log = deps.log;
    this.rules = new TeamCache('faults', deps.notices ?? ALONE);
  }

  add(workspaceId: string, input: FaultAdd): FaultView {
    this.requireSandbox();
    const row = this.validated(workspaceId, input);
    this.repo.insert(row);
    this.rules.changed(workspaceId);
    return faultView(row);
  }

  /** As stored: the counters are those of every daemon's calls. */
  list(workspaceId: string): FaultView[] {
    this.requireSandbox();
    return this.repo.ofWorkspace(workspaceId).map(faultView);
  }

  remove(workspaceId: string, id: string): FaultView {
    this.requireSandbox();
    const row = this.repo.get(workspaceId, id);
    if (!row || !this.repo.delete(workspaceId, id)) {
      throw new ApiError(
        'not_found',
        `No fault rule ${id} in this workspace. List them with: svc faults list`,
        {
          param: 'id',
        },
      );
    }
    this.rules.changed(workspaceId);
    return faultView(row);
  }

  clear(workspaceId: string): number {
    this.requireSandbox();
    const cleared = this.repo.clear(workspaceId);
    this.rules.changed(workspaceId);
    return cleared;
  }

  /**
   * The fault to inject into this call, if a rule of its workspace hits it. Every rule that
   * targets the call counts it (seeded shares and --attempts of agents read that count); the
   * first one that hits wins. Cheap when the workspace has no rule: one map lookup (once its
   * rules were read). A rule that targets the call is decided on its counters as stored.
   */
  decide(call: FaultCall): InjectedFault | undefined {
    if (!this.sandbox) return undefined;
    const rules = this.rules.read(call.workspaceId, () => this.compiled(call.workspaceId));
    let injected: InjectedFault | undefined;
    for (const rule of rules) {
      // Counts only grow: a rule retired here is retired in the store too.
      if (injected || retired(rule.row) || !targets(rule.row, call)) continue;
      const decision = this.repo.count(rule.row, (stored) => decide(stored, call, rule.matches));
      if (!decision?.hit) continue;
      injected = injectedOf(rule.row);
      this.log.info(
        {
          fault_id: rule.row.id,
          workspace_id: call.workspaceId,
          point: call.point,
          url: call.url,
          webhook_id: call.webhookId,
          workflow_id: call.workflowId,
          step_id: call.stepId,
          agent_id: call.agentId,
          attempt: call.attempt,
          injected: describeWhat(rule.row),
        },
        `injected fault ${rule.row.id}`,
      );
    }
    return injected;
  }

  /** Resolves once the daemon clock has moved `ms` on (a clock advance ends it sooner). */
  delay(ms: number): Promise<void> {
    return new Promise((resolve) => this.alarms.at(this.clock.now() + ms, resolve));
  }

  /** A workspace's rules as stored, their --match patterns compiled. */
  private compiled(workspaceId: string): Rule[] {
    const rules: Rule[] = [];
    for (const row of this.repo.ofWorkspace(workspaceId)) {
      rules.push({ row, matches: row.match === null ? undefined : this.matcher(rules, row.match) });
    }
    return rules;
  }

  /**
   * A rule's compiled --match. One stored before today's rules (one RE2 cannot run, one over the
   * cost, or one past what a workspace's patterns may cost together) never matches, rather than
   * failing the start or stalling every call.
   */
  private matcher(rules: Rule[], match: string): StubMatcher {
    try {
      const matcher = compileStubMatch(match);
      return patternsCost(rules) + matcher.cost <= MAX_PATTERN_COST ? matcher : NEVER;
    } catch {
      return NEVER;
    }
  }

  private requireSandbox(): void {
    if (!this.sandbox) {
      throw new ApiError(
        'conflict',
        'Fault injection exists only in the sandbox environment (this daemon runs production).',
      );
    }
  }

  /** The rule as stored, or a clear error naming the flag to fix. */
  private validated(workspaceId: string, input: FaultAdd): FaultRow {
    const wheres = [input.webhook_id, input.url_prefix, input.workflow_id, input.agent_id].filter(
      (value) => value !== undefined,
    );
    if (wheres.length !== 1) {
      throw invalidParameter(
        'where',
        'A fault rule needs exactly one of --webhook hook_..., --url-prefix URL, --workflow wfl_... --step ID, --agent agt_....',
      );
    }
    if ((input.workflow_id === undefined) !== (input.step_id === undefined)) {
      throw invalidParameter(
        'step',
        '--workflow and --step go together: the step of that workflow.',
      );
    }
    const httpWhats = [input.status !== undefined, input.timeout, input.reset].filter(Boolean);
    if (httpWhats.length + (input.fail !== undefined ? 1 : 0) > 1) {
      throw invalidParameter('what', 'Give one of --status, --timeout, --reset or --fail.');
    }
    if (httpWhats.length === 0 && input.fail === undefined && input.latency_ms === undefined) {
      throw invalidParameter(
        'what',
        'Say what to inject: --status 503, --timeout, --latency 2s, --reset or --fail CODE.',
      );
    }
    if (input.fail !== undefined) {
      if (!(input.fail in ERROR_CODES)) {
        throw invalidParameter(
          'fail',
          `'${input.fail}' is not an error code (e.g. external_api_error, execution_timeout).`,
        );
      }
      if (input.workflow_id === undefined && input.agent_id === undefined) {
        throw invalidParameter(
          'fail',
          '--fail fails a workflow step or an agent execution: use it with --workflow/--step or --agent. For HTTP calls use --status, --timeout or --reset.',
        );
      }
      if (input.latency_ms !== undefined) {
        throw invalidParameter(
          'latency',
          '--latency delays HTTP calls; it does not go with --fail.',
        );
      }
    }
    if (input.agent_id !== undefined && input.latency_ms !== undefined) {
      throw invalidParameter(
        'latency',
        'Agents take no --latency fault: make an agent slow with svc agents stub add --delay.',
      );
    }
    if (input.url_prefix !== undefined && !/^https?:\/\/[^/]/i.test(input.url_prefix)) {
      throw invalidParameter('url_prefix', '--url-prefix takes an http:// or https:// URL prefix.');
    }
    if (input.attempts_to !== undefined && input.attempts_from === undefined) {
      throw invalidParameter(
        'attempts',
        'attempts_to needs attempts_from (the CLI: --attempts N or FROM-TO, e.g. 1-2).',
      );
    }
    if (
      input.attempts_from !== undefined &&
      input.attempts_to !== undefined &&
      input.attempts_to < input.attempts_from
    ) {
      throw invalidParameter(
        'attempts',
        'attempts_from must not exceed attempts_to (the CLI: --attempts FROM-TO with FROM <= TO, e.g. 1-2).',
      );
    }
    if (input.seed !== undefined && input.rate === undefined) {
      throw invalidParameter(
        'seed',
        '--seed goes with --rate (the seeded share of calls to fail).',
      );
    }
    if (input.match !== undefined) {
      // Every call a workspace makes may be matched against all its rules' patterns.
      const total = patternsCost(this.compiled(workspaceId)) + compileStubMatch(input.match).cost;
      if (total > MAX_PATTERN_COST) {
        throw new ApiError(
          'conflict',
          `This workspace's fault rule patterns would cost ${total} together and may cost at most ${MAX_PATTERN_COST} (${PATTERN_COST_RULE}). Match a substring, or remove rules with: svc faults remove ID`,
        );
      }
    }
    if (input.webhook_id !== undefined) this.existing.webhook(workspaceId, input.webhook_id);
    if (input.workflow_id !== undefined) {
      this.existing.workflowStep(workspaceId, input.workflow_id, input.step_id!);
    }
    if (input.agent_id !== undefined) this.existing.agent(workspaceId, input.agent_id);
    return {
      id: newId('fault'),
      workspace_id: workspaceId,
      webhook_id: input.webhook_id ?? null,
      url_prefix: input.url_prefix ?? null,
      workflow_id: input.workflow_id ?? null,
      step_id: input.step_id ?? null,
      agent_id: input.agent_id ?? null,
      attempts_from: input.attempts_from ?? null,
      attempts_to: input.attempts_to ?? input.attempts_from ?? null,
      rate: input.rate ?? null,
      seed: input.rate === undefined ? null : (input.seed ?? 0),
      times: input.times ?? null,
      match: input.match ?? null,
      status: input.status ?? null,
      timeout: input.timeout ? 1 : 0,
      latency_ms: input.latency_ms ?? null,
      reset: input.reset ? 1 : 0,
      fail_code: input.fail ?? null,
      seen: 0,
      hits: 0,
      created_at: this.clock.now(),
    };
  }
}

function injectedOf(row: FaultRow): InjectedFault {
  return {
    id: row.id,
    status: row.status,
    timeout: row.timeout === 1,
    latencyMs: row.latency_ms,
    reset: row.reset === 1,
    // Checked against the table when the rule was added.
    fail: row.fail_code as ErrorCode | null,
  };
}

function describeWhat(row: FaultRow): string {
  const parts: string[] = [];
  if (row.latency_ms !== null) parts.push(`latency ${row.latency_ms} ms`);
  if (row.status !== null) parts.push(`HTTP ${row.status}`);
  if (row.timeout === 1) parts.push('timeout');
  if (row.reset === 1) parts.push('connection reset');
  if (row.fail_code !== null) parts.push(`fail ${row.fail_code}`);
  return parts.join(', ');
}

export function faultView(row: FaultRow): FaultView {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    where: {
      webhook_id: row.webhook_id,
      url_prefix: row.url_prefix,
      workflow_id: row.workflow_id,
      step_id: row.step_id,
      agent_id: row.agent_id,
    },
    when: {
      attempts:
        row.attempts_from === null
          ? null
          : { from: row.attempts_from, to: row.attempts_to ?? row.attempts_from },
      rate: row.rate,
      seed: row.seed,
      times: row.times,
      match: row.match,
    },
    what: {
      status: row.status,
      timeout: row.timeout === 1,
      latency_ms: row.latency_ms,
      reset: row.reset === 1,
      fail: row.fail_code,
    },
    seen: row.seen,
    hits: row.hits,
    retired: retired(row),
    created_at: toIso(row.created_at),
  };
}

/** What the rules' --match patterns cost together. */
function patternsCost(rules: Rule[]): number {
  return rules.reduce((sum, rule) => sum + (rule.matches?.cost ?? 0), 0);
}
