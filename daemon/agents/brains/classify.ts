// Picks an action for an input, deterministically: keyword rules first, then the agent type's
// default; a capability switched off (false) is never picked.

const RULES: readonly [RegExp, string][] = [
  [/\b(refund|money back|reimburse|chargeback)/i, 'issue_refund'],
  [/\bcancel/i, 'cancel_order'],
  [/\b(track|tracking|shipping|shipment|delivery|where is my|order status)/i, 'check_order_status'],
  [/\b(escalate|manager|supervisor|human|complain|complaint)/i, 'escalate_to_human'],
  [/\b(price|pricing|quote|discount|purchase|demo|trial)/i, 'qualify_lead'],
  [/\b(schedule|meeting|appointment|calendar|book a)/i, 'schedule_meeting'],
  [/\b(invoice|billing|payment|charge)/i, 'process_invoice'],
  [/\b(research|analy[sz]e|compare|summari[sz]e|report|trend)/i, 'research_topic'],
  [/\b(restart|deploy|incident|outage|backup|provision)/i, 'run_operation'],
];

const DEFAULT_ACTIONS: Record<string, string> = {
  'customer-service': 'answer_question',
  operations: 'run_operation',
  research: 'research_topic',
  sales: 'qualify_lead',
  custom: 'respond',
};

export interface Classification {
  action: string;
  /** Whether a keyword rule decided (more confident than the type default). */
  matchedRule: boolean;
}

export function classify(
  input: string,
  type: string,
  capabilities: Record<string, boolean>,
): Classification {
  for (const [pattern, action] of RULES) {
    if (pattern.test(input) && capabilities[action] !== false) return { action, matchedRule: true };
  }
  const fallback = DEFAULT_ACTIONS[type] ?? 'respond';
  return { action: capabilities[fallback] === false ? 'respond' : fallback, matchedRule: false };
}
