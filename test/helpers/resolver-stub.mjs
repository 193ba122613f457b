// A resolver stub for end-to-end tests, preloaded into the daemon with
// NODE_OPTIONS=--import=<this file>: names listed in SVC_TEST_RESOLVE ("name=address,...")
// resolve to the given address through dns.lookup (what sockets use), the way a hosts-file
// alias or a DNS answer would; every other name resolves as usual.
import dns from 'node:dns';

const table = new Map(
  (process.env.SVC_TEST_RESOLVE ?? '')
    .split(',')
    .filter(Boolean)
    .map((entry) => entry.split('=').map((part) => part.trim().toLowerCase())),
);
const original = dns.lookup;

dns.lookup = function lookup(hostname, options, callback) {
  if (typeof options === 'function') {
    callback = options;
    options = {};
  } else if (typeof options === 'number') {
    options = { family: options };
  }
  const address = table.get(String(hostname).toLowerCase());
  if (address === undefined) return original.call(dns, hostname, options, callback);
  const family = address.includes(':') ? 6 : 4;
  process.nextTick(() =>
    options?.all ? callback(null, [{ address, family }]) : callback(null, address, family),
  );
  return undefined;
};
