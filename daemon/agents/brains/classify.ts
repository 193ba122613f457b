// Picks an action for an input, deterministically: keyword rules first, then the agent type's
// default; a capability switched off (false) is never picked.

/** Each rule's keywords, matched case-insensitively at the start of a word; earlier rules win. */
const RULES: readonly [keywords: string, action: string][] = [
  ['refund|money back|reimburse|chargeback', 'issue_refund'],
  ['cancel', 'cancel_order'],
  ['track|tracking|shipping|shipment|delivery|where is my|order status', 'check_order_status'],
  ['escalate|manager|supervisor|human|complain|complaint', 'escalate_to_human'],
  ['price|pricing|quote|discount|purchase|demo|trial', 'qualify_lead'],
  ['schedule|meeting|appointment|calendar|book a', 'schedule_meeting'],
  ['invoice|billing|payment|charge', 'process_invoice'],
  ['research|analy[sz]e|compare|summari[sz]e|report|trend', 'research_topic'],
  ['restart|deploy|incident|outage|backup|provision', 'run_operation'],
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
  const rule = firstRule(input, (index) => capabilities[RULES[index]![1]] !== false);
  if (rule !== undefined) return { action: RULES[rule]![1], matchedRule: true };
  const fallback = DEFAULT_ACTIONS[type] ?? 'respond';
  return { action: capabilities[fallback] === false ? 'respond' : fallback, matchedRule: false };
}

/** Each rule's keywords, tried at one position (sticky). */
const AT_POSITION = RULES.map(([keywords]) => new RegExp(`(?:${keywords})`, 'iy'));

/** Positions where a keyword of one of the rules (by index) starts a word, found in one scan. */
const scanners = new Map<string, RegExp>();
function scannerFor(rules: readonly number[]): RegExp {
  const key = rules.join(',');
  let scanner = scanners.get(key);
  if (!scanner) {
    const keywords = rules.map((index) => RULES[index]![0]).join('|');
    scanner = new RegExp(`\\b(?=${keywords})`, 'gi');
    scanners.set(key, scanner);
  }
  return scanner;
}

/**
 * The earliest rule (among those `allowed`) whose keywords occur in the input, as if each rule
 * were tried over the whole input in turn, but in one pass: a long input with no keyword is
 * scanned once, not once per rule. Each position found is checked against the rules ahead of
 * the best one so far, and the scan goes on for those rules only.
 */
function firstRule(input: string, allowed: (index: number) => boolean): number | undefined {
  let candidates = RULES.map((_, index) => index).filter(allowed);
  let best: number | undefined;
  let from = 0;
  while (candidates.length > 0) {
    const scanner = scannerFor(candidates);
    scanner.lastIndex = from;
    const found = scanner.exec(input);
    if (!found) break;
    const at = found.index;
    for (const index of candidates) {
      const keyword = AT_POSITION[index]!;
      keyword.lastIndex = at;
      if (keyword.test(input)) {
        best = index;
        break;
      }
    }
    // The scanner only stops where a candidate's keyword starts, so `best` was found here.
    candidates = candidates.filter((index) => index < best!);
    from = at + 1;
  }
  return best;
}

/**
 * The actions an agent may take, named for a refusal: those the classifier knows and the
 * capabilities set to true, without the ones set to false (any other action is allowed too).
 */
export function knownAllowedActions(capabilities: Record<string, boolean>): string[] {
  const known = new Set([
    ...RULES.map(([, action]) => action),
    ...Object.values(DEFAULT_ACTIONS),
    ...Object.keys(capabilities).filter((name) => capabilities[name] === true),
  ]);
  return [...known].filter((action) => capabilities[action] !== false).sort();
}
