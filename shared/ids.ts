// Prefixed identifiers: a prefix that names the kind, then random base62.
import { randomBytes } from 'node:crypto';

export const ID_PREFIXES = {
  workspace: 'ws_',
  user: 'usr_',
  key: 'key_',
  event: 'evt_',
  request: 'req_',
  timer: 'tmr_',
  agent: 'agt_',
  workflow: 'wfl_',
  workflowExecution: 'wex_',
  agentExecution: 'exec_',
  webhook: 'hook_',
  delivery: 'del_',
  template: 'tmpl_',
  integration: 'int_',
  message: 'msg_',
  conversation: 'conv_',
  document: 'doc_',
  stub: 'stub_',
  fault: 'flt_',
  oauthApp: 'app_',
  oauthGrant: 'grant_',
  oauthToken: 'tok_',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random bytes are drawn from the OS in blocks: one system call serves many ids. */
const POOL_SIZE = 4096;
let pool = randomBytes(POOL_SIZE);
let poolOffset = 0;

function nextRandomByte(): number {
  if (poolOffset === POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    poolOffset = 0;
  }
  return pool[poolOffset++]!;
}

/** Unbiased random base62 string of the given length (rejection sampling). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = nextRandomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

/**
 * prefix + 8 base62 characters of the creation time (ms) + 12 random ones. Ids made later sort
 * later, so new rows land at the end of the store's indexes (fewer pages written per commit).
 */
export function newId(kind: IdKind): string {
  return ID_PREFIXES[kind] + timePart(Date.now()) + randomBase62(12);
}

function timePart(ms: number): string {
  let out = '';
  let rest = ms;
  for (let i = 0; i < 8; i++) {
    out = BASE62[rest % 62]! + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

/** svc's id grammar: a kind's prefix, then base62 (1 to 64 characters; newId makes 20). */
const ID_BODY = /^[0-9A-Za-z]{1,64}$/;

/**
 * Whether `text` is an id of `kind` as svc writes them. Ids travel as data (a daemon's answer, a
 * snapshot): anything else in their place is refused or left out, never passed on.
 */
export function isIdOf(kind: IdKind, text: unknown): text is string {
  const prefix = ID_PREFIXES[kind];
  return (
    typeof text === 'string' && text.startsWith(prefix) && ID_BODY.test(text.slice(prefix.length))
  );
}
