// Runs steps for the engine: asks the sandbox's fault rules once per attempt, gives the step its
// scope with secrets, hands it to its type's module (index.ts) and masks the secrets it used out
// of the outcome. Runners read the run's scope and never write: the engine records the outcome
// together with what follows, in one transaction.
import type { FaultCall, InjectedFault } from '../../faults/fault.service.js';
import { secretsScope, type Scope } from '../expressions.js';
import { kindOf } from './index.js';
import type { StepContext, StepDeps, StepRun } from './kind.js';
import { agentOf, failure, maskOutcome, type StepOutcome } from './outcome.js';
import { runInput } from './webhook.js';

/** The sandbox's fault rules, as steps ask them (FaultService). */
export interface StepFaults {
  decide(call: FaultCall): InjectedFault | undefined;
}

/** Step attempts whose fault rules runNow asked already (run() must not ask again). */
const ASKED_LIMIT = 10_000;

export class StepRunner {
  private readonly asked = new Set<string>();

  constructor(
    private readonly deps: StepDeps,
    private readonly faults?: StepFaults,
  ) {}

  /**
   * Runs the step at once when it needs only the store and the CPU: a condition, a wait (its
   * timer is part of the outcome), a parallel fork, an agent step that a stub or a local brain
   * decides. The engine does so inside the transaction that reached the step. Undefined, having
   * started nothing, when the step needs the network or time: then run() it.
   */
  runNow(context: StepContext): StepOutcome | undefined {
    const injected = this.injectedFailure(context);
    if (injected) return injected;
    const run = this.runOf(context);
    let outcome: StepOutcome | undefined;
    try {
      outcome = kindOf(context.step).runNow(run);
    } catch (error) {
      outcome = failure(error, context.step);
    }
    if (!outcome) this.markAsked(context);
    return outcome && counted(maskOutcome(outcome, run.used), context);
  }

  /** Runs the step to its outcome, whatever it needs (after the commit that reached it). */
  async run(context: StepContext): Promise<StepOutcome> {
    const injected = this.injectedFailure(context);
    if (injected) return injected;
    const run = this.runOf(context);
    try {
      const kind = kindOf(context.step);
      const outcome = kind.runLater ? await kind.runLater(run) : kind.runNow(run)!;
      return counted(maskOutcome(outcome, run.used), context);
    } catch (error) {
      return counted(maskOutcome(failure(error, context.step), run.used), context);
    }
  }

  private runOf(context: StepContext): StepRun {
    const used = new Map<string, string>();
    const scope: Scope = { ...context.scope, secrets: secretsScope(context.reveal, used) };
    return { context, step: context.step, scope, used, deps: this.deps };
  }

  /**
   * A --fail rule on this step (svc faults --workflow --step) fails it as the step itself
   * would: a failed outcome with the rule's code, which the engine retries per retry_policy.
   * Asked once per attempt, whichever of runNow and run gets to the step.
   */
  private injectedFailure(context: StepContext): StepOutcome | undefined {
    if (!this.faults) return undefined;
    const key = `${context.executionId}/${context.step.id}#${context.attempt}`;
    if (this.asked.delete(key)) return undefined;
    const fault = this.faults.decide({
      point: 'step',
      workspaceId: context.workspaceId,
      workflowId: context.workflowId,
      stepId: context.step.id,
      attempt: context.attempt,
      matchText: () => runInput(context),
    });
    if (!fault?.fail) return undefined;
    return {
      type: 'failed',
      code: fault.fail,
      message: `Step ${context.step.id} failed with ${fault.fail} (injected by the sandbox fault rule ${fault.id}).`,
      agentId: agentOf(context.step),
      result: null,
      injectedFault: fault.id,
    };
  }

  /** runNow asked the rules and left the step to run(): remember it for run(). */
  private markAsked(context: StepContext): void {
    if (!this.faults) return;
    if (this.asked.size >= ASKED_LIMIT) this.asked.clear();
    this.asked.add(`${context.executionId}/${context.step.id}#${context.attempt}`);
  }
}

/** The outcome with what the attempt's interpolation produced (its run's budget counts it). */
function counted(outcome: StepOutcome, context: StepContext): StepOutcome {
  const used = context.budget.used;
  return used === 0 ? outcome : { ...outcome, interpolated: used };
}
