// [secret:NAME] in place of every secret a step used, in whatever it stores or shows: its result,
// its error message, an agent's input. A secret is masked in the forms it takes where a step
// places it, not only as written: a URL percent-encodes it (`a b/ü` is `a%20b/%C3%BC` in a
// path, the failed call's message quotes the URL), a JSON body escapes `"` and `\`, a receiver
// may answer with it form-encoded or with \u escapes, a host name is lower-cased and punycoded.
// Forms are matched ignoring letter case (percent-encoding may use %2f or %2F).
import { domainToASCII } from 'node:url';

/** The texts a secret's value may appear as, longest first (so the longest match is masked). */
export function secretForms(value: string): string[] {
  const forms = new Set<string>([
    value,
    encodeURIComponent(value),
    encodeURI(value),
    JSON.stringify(value).slice(1, -1),
    asciiJson(value),
    new URLSearchParams({ v: value }).toString().slice(2),
    ...urlComponentForms(value),
  ]);
  // A host name is punycoded (its lower case is matched anyway): only for a value that can be
  // one whole, as domainToASCII reads up to the first delimiter ('a/b' would give 'a').
  if (/[^\p{ASCII}]/u.test(value) && !/[\s/\\?#@:%]/.test(value)) forms.add(domainToASCII(value));
  // An encoding never shortens the value; a shorter form is a normalisation ('a/../b' as a path
  // is 'b'), and masking it would hide unrelated text.
  return [...forms]
    .filter((form) => form.length >= value.length)
    .sort((a, b) => b.length - a.length);
}

/** JSON-escaped with every non-ASCII character as \uXXXX (what many JSON encoders send). */
function asciiJson(value: string): string {
  return JSON.stringify(value)
    .slice(1, -1)
    .replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The value as the WHATWG URL parser (new URL, which checks every webhook step's URL) encodes it
 * in a path, a query and a fragment: each has its own set of characters it leaves as they are.
 */
function urlComponentForms(value: string): string[] {
  const url = new URL('http://svc.invalid/');
  url.pathname = `/${value}`;
  const path = url.pathname.slice(1);
  url.search = `?${value}`;
  const query = url.search.slice(1);
  url.hash = `#${value}`;
  return [path, query, url.hash.slice(1)];
}

/** One pattern for every form of every used secret, and which secret each form belongs to. */
function maskerOf(used: ReadonlyMap<string, string>): ((text: string) => string) | undefined {
  const forms = new Set<string>();
  const nameOf = new Map<string, string>();
  for (const [name, secret] of used) {
    if (secret === '') continue;
    for (const form of secretForms(secret)) {
      forms.add(form);
      if (!nameOf.has(form.toLowerCase())) nameOf.set(form.toLowerCase(), name);
    }
  }
  if (forms.size === 0) return undefined;
  const pattern = new RegExp(
    [...forms]
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp)
      .join('|'),
    'gi',
  );
  // A match that differs from its form in more than simple letter case still gets masked.
  return (text) =>
    text.replace(pattern, (found) => `[secret:${nameOf.get(found.toLowerCase()) ?? 'secret'}]`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** Replaces every secret's forms inside a JSON-like value (keys too) with [secret:NAME]. */
export function maskSecrets<T>(value: T, used: ReadonlyMap<string, string>): T {
  if (used.size === 0) return value;
  const mask = maskerOf(used);
  if (!mask) return value;
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') return mask(item);
    if (Array.isArray(item)) return item.map(walk);
    if (item !== null && typeof item === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(item)) out[mask(key)] = walk(inner);
      return out;
    }
    return item;
  };
  return walk(value) as T;
}
