// The default brain: offline and deterministic (same agent, input and knowledge, same result).
// It classifies the input into an action, answers by quoting the best-matching passage of the
// agent's knowledge verbatim, and derives the confidence from how well that passage matches.
import type { Brain, BrainInput, BrainResult } from './brain.js';
import { classify } from './classify.js';

const NO_KNOWLEDGE_CONFIDENCE = { rule: 0.75, fallback: 0.6 };

export class SimulatedBrain implements Brain {
  readonly name = 'simulated' as const;

  think(input: BrainInput): Promise<BrainResult> {
    return Promise.resolve(this.thinkLocally(input));
  }

  thinkLocally({ agent, input, passages }: BrainInput): BrainResult {
    const { action, matchedRule } = classify(input, agent.type, agent.capabilities);
    const best = passages[0];
    if (best && best.coverage > 0) {
      return { action, output: best.text, confidence: round(0.5 + 0.45 * best.coverage) };
    }
    return {
      action,
      output: compose(action, input, agent.personality.tone),
      confidence: matchedRule ? NO_KNOWLEDGE_CONFIDENCE.rule : NO_KNOWLEDGE_CONFIDENCE.fallback,
    };
  }
}

const ACTION_PHRASES: Record<string, string> = {
  issue_refund: 'I can process a refund for this request.',
  cancel_order: 'I can cancel this order for you.',
  check_order_status: 'I will look up the status of this order.',
  escalate_to_human: 'I am passing this to a member of the team.',
  qualify_lead: 'I will gather the details needed to prepare an offer.',
  schedule_meeting: 'I will find a time that works and send an invitation.',
  process_invoice: 'I will review the billing details and process the invoice.',
  research_topic: 'I will research this and summarise what I find.',
  run_operation: 'I will carry out this operation and report the outcome.',
  answer_question: 'Here is what I can tell you.',
  respond: 'Noted.',
};

function compose(action: string, input: string, tone: string | null): string {
  const phrase = ACTION_PHRASES[action] ?? `I will handle this (${action}).`;
  const opener =
    tone === 'formal'
      ? 'Thank you for your message.'
      : tone === 'friendly'
        ? 'Thanks for reaching out!'
        : 'Understood.';
  const topic = input.length > 120 ? `${input.slice(0, 117)}...` : input;
  return `${opener} Regarding "${topic}": ${phrase}`;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
