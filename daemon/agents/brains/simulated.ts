// The default brain: offline and deterministic (same agent, input and knowledge, same result).
// It takes the action asked for (a workflow step's) or classifies the input into one, answers
// by quoting the best-matching passage of the agent's knowledge verbatim, and derives the
// confidence from how well that passage matches. Without a passage it writes a short reply in
// sentences: the input is described in words, never quoted as JSON, so that a step's output fed
// into the next step's input does not nest quoted JSON a level deeper each time.
import type { Brain, BrainInput, BrainResult } from './brain.js';
import { classify } from './classify.js';

const NO_KNOWLEDGE_CONFIDENCE = { rule: 0.75, fallback: 0.6 };

export class SimulatedBrain implements Brain {
  readonly name = 'simulated' as const;

  think(input: BrainInput): Promise<BrainResult> {
    return Promise.resolve(this.thinkLocally(input));
  }

  thinkLocally({ agent, input, passages, action: asked }: BrainInput): BrainResult {
    const classified = classify(input, agent.type, agent.capabilities);
    const action = asked ?? classified.action;
    const best = passages[0];
    if (best && best.coverage > 0) {
      return { action, output: best.text, confidence: round(0.5 + 0.45 * best.coverage) };
    }
    return {
      action,
      output: compose(action, classified.action, input, agent.personality.tone),
      confidence: classified.matchedRule
        ? NO_KNOWLEDGE_CONFIDENCE.rule
        : NO_KNOWLEDGE_CONFIDENCE.fallback,
    };
  }
}

const ACTION_PHRASES: Record<string, string> = {
  issue_refund: 'I can process a refund for this request',
  cancel_order: 'I can cancel this order for you',
  check_order_status: 'I will look up the status of this order',
  escalate_to_human: 'I am passing this to a member of the team',
  qualify_lead: 'I will gather the details needed to prepare an offer',
  schedule_meeting: 'I will find a time that works and send an invitation',
  process_invoice: 'I will review the billing details and process the invoice',
  research_topic: 'I will research this and summarise what I find',
  run_operation: 'I will carry out this operation and report the outcome',
  answer_question: 'I have nothing in my knowledge about this yet',
  summarize: 'Here is what I will summarise',
  summarise: 'Here is what I will summarise',
  respond: 'Noted',
};

/** What a `classify` action says the input is, by the classifier's action. */
const KINDS: Record<string, string> = {
  issue_refund: 'a refund request',
  cancel_order: 'a cancellation',
  check_order_status: 'an order status question',
  escalate_to_human: 'a request for a person',
  qualify_lead: 'a sales lead',
  schedule_meeting: 'a meeting request',
  process_invoice: 'a billing question',
  research_topic: 'a research request',
  run_operation: 'an operations task',
};

function compose(action: string, classified: string, input: string, tone: string | null): string {
  const opener =
    tone === 'formal'
      ? 'Thank you for your message.'
      : tone === 'friendly'
        ? 'Thanks for reaching out!'
        : 'Understood.';
  const phrase =
    action === 'classify'
      ? `This reads as ${KINDS[classified] ?? 'a general question'}`
      : (ACTION_PHRASES[action] ?? `I will carry out the ${action.replace(/_/g, ' ')} action`);
  const topic = topicOf(input);
  if (topic === '') return `${opener} ${phrase}.`;
  return `${opener} ${phrase}: ${topic}${/[.!?]$/.test(topic) ? '' : '.'}`;
}

/** The default input of a workflow agent step: `<action>: <input_mapping as JSON>`. */
const STEP_INPUT = /^[a-z0-9_]+: (\{[\s\S]*\})$/;
const MAX_TOPIC = 120;
/** Inputs longer than this are not parsed as a step's input (their topic is cut anyway). */
const MAX_PARSED = 64 * 1024;

/** The input in words, at most 120 characters: a step's mapped values, else the text itself. */
function topicOf(input: string): string {
  let text = input;
  const step = input.length <= MAX_PARSED ? STEP_INPUT.exec(input) : null;
  if (step) {
    try {
      text = describe(JSON.parse(step[1]!) as unknown, true);
    } catch {
      // Not JSON after all: the text as it is.
    }
  }
  text = text.replace(/\s+/g, ' ').trim();
  return text.length > MAX_TOPIC ? `${text.slice(0, MAX_TOPIC - 3)}...` : text;
}

/** A JSON value in words: an object of one field is its value, else `name value, ...`. */
function describe(value: unknown, top = false): string {
  if (value === null || value === undefined) return 'none';
  if (typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return value.map((item) => describe(item)).join(', ');
  const entries = Object.entries(value as Record<string, unknown>);
  if (top && entries.length === 1) return describe(entries[0]![1]);
  return entries.map(([name, item]) => `${name.replace(/_/g, ' ')} ${describe(item)}`).join(', ');
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
