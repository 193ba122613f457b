// The receiver helper the package exports (shared/signature.ts, decisions §9): the header
// format, HMAC-SHA256 over `<t>.<raw body>` keyed by the whole secret, constant-time checks of
// one or several v1 values, the 300 s tolerance both ways, malformed headers, Buffer bodies.
import test from 'ava';
import { createHmac } from 'node:crypto';
import * as pkg from '../../shared/index.js';
import {
  computeSignature,
  DEFAULT_TOLERANCE_SECONDS,
  SIGNATURE_HEADER,
  signatureHeader,
  verifySignature,
} from '../../shared/signature.js';

const SECRET = 'whsec_5fK2pQ9xLm3nR7tV1wY4zA8bC6dE0gHj';
const BODY = JSON.stringify({
  id: 'evt_1',
  type: 'agent.created',
  created_at: '2030-01-01T00:00:00.000Z',
  workspace_id: 'ws_1',
  data: { name: 'Zoë – naïve ☕' },
});
const NOW = 1_900_000_000;

/** The spec's text, independently: lowercase hex HMAC-SHA256 of `<t>.<body>`. */
function reference(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
}

test('computeSignature is the lowercase hex HMAC-SHA256 of `<t>.<raw body>`', (t) => {
  const signature = computeSignature(SECRET, NOW, BODY);
  t.regex(signature, /^[0-9a-f]{64}$/);
  t.is(signature, reference(SECRET, NOW, BODY));
  t.not(
    signature,
    reference(SECRET.slice('whsec_'.length), NOW, BODY),
    'keyed by the whole secret',
  );
  t.not(computeSignature(SECRET, NOW + 1, BODY), signature, 'the timestamp is signed');
});

test('signatureHeader is `t=<unix>,v1=<hex>` and defaults t to the real time now', (t) => {
  t.is(SIGNATURE_HEADER, 'X-Svc-Signature');
  t.is(DEFAULT_TOLERANCE_SECONDS, 300);
  t.is(signatureHeader(SECRET, BODY, NOW), `t=${NOW},v1=${reference(SECRET, NOW, BODY)}`);
  const before = Math.floor(Date.now() / 1000);
  const header = signatureHeader(SECRET, BODY);
  const after = Math.floor(Date.now() / 1000);
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  t.truthy(match);
  const timestamp = Number(match![1]);
  t.true(timestamp >= before && timestamp <= after);
  t.deepEqual(verifySignature(BODY, header, SECRET), { valid: true, timestamp });
});

test('a valid signature verifies', (t) => {
  const header = signatureHeader(SECRET, BODY, NOW);
  t.deepEqual(verifySignature(BODY, header, SECRET, { now: NOW }), { valid: true, timestamp: NOW });
  // A header made by hand from the spec's text verifies too.
  const manual = `t=${NOW},v1=${reference(SECRET, NOW, BODY)}`;
  t.true(verifySignature(BODY, manual, SECRET, { now: NOW + 10 }).valid);
});

test('a tampered body, a wrong secret or a wrong signature do not verify', (t) => {
  const header = signatureHeader(SECRET, BODY, NOW);
  const fail = { valid: false, reason: 'no_matching_signature' };
  t.deepEqual(
    verifySignature(BODY.replace('agent.created', 'agent.deleted'), header, SECRET, { now: NOW }),
    fail,
  );
  t.deepEqual(verifySignature(BODY + '\n', header, SECRET, { now: NOW }), fail);
  t.deepEqual(
    verifySignature(JSON.stringify(JSON.parse(BODY), null, 2), header, SECRET, { now: NOW }),
    fail,
    're-serialised JSON is not the raw body',
  );
  t.deepEqual(verifySignature(BODY, header, `${SECRET}x`, { now: NOW }), fail);
  t.deepEqual(verifySignature(BODY, header, SECRET.slice('whsec_'.length), { now: NOW }), fail);
  t.deepEqual(verifySignature(BODY, header, '', { now: NOW }), fail);
  const signature = header.split('v1=')[1]!;
  const flipped = (signature[0] === 'a' ? 'b' : 'a') + signature.slice(1);
  t.deepEqual(verifySignature(BODY, `t=${NOW},v1=${flipped}`, SECRET, { now: NOW }), fail);
  // The timestamp is part of what is signed: moving it breaks the signature.
  t.deepEqual(verifySignature(BODY, `t=${NOW + 1},v1=${signature}`, SECRET, { now: NOW }), fail);
});

test('timestamps more than the tolerance away, in the past or the future, are refused', (t) => {
  const header = signatureHeader(SECRET, BODY, NOW);
  const stale = { valid: false, reason: 'timestamp_out_of_tolerance' };
  t.true(
    verifySignature(BODY, header, SECRET, { now: NOW + 300 }).valid,
    '300 s old is still fine',
  );
  t.true(verifySignature(BODY, header, SECRET, { now: NOW - 300 }).valid, '300 s ahead is fine');
  t.deepEqual(verifySignature(BODY, header, SECRET, { now: NOW + 301 }), stale);
  t.deepEqual(verifySignature(BODY, header, SECRET, { now: NOW + 86_400 }), stale);
  t.deepEqual(verifySignature(BODY, header, SECRET, { now: NOW - 301 }), stale);
  // A custom tolerance.
  t.deepEqual(
    verifySignature(BODY, header, SECRET, { now: NOW + 61, toleranceSeconds: 60 }),
    stale,
  );
  t.true(verifySignature(BODY, header, SECRET, { now: NOW + 599, toleranceSeconds: 600 }).valid);
  // Without `now`, the real clock decides.
  const real = Math.floor(Date.now() / 1000);
  t.deepEqual(verifySignature(BODY, signatureHeader(SECRET, BODY, real - 400), SECRET), stale);
  t.deepEqual(verifySignature(BODY, signatureHeader(SECRET, BODY, real + 400), SECRET), stale);
  t.true(verifySignature(BODY, signatureHeader(SECRET, BODY, real - 100), SECRET).valid);
  // A stale timestamp is refused even with a correct signature over it.
  const old = real - 301;
  t.deepEqual(verifySignature(BODY, `t=${old},v1=${reference(SECRET, old, BODY)}`, SECRET), stale);
});

test('several v1 values: valid when one of them matches', (t) => {
  const good = computeSignature(SECRET, NOW, BODY);
  const other = computeSignature('whsec_previousSecretDuringRotation', NOW, BODY);
  for (const header of [
    `t=${NOW},v1=${other},v1=${good}`,
    `t=${NOW},v1=${good},v1=${other}`,
    `v1=${other},t=${NOW},v1=${good}`,
    `t=${NOW}, v1=${other}, v1=${good}`,
    `t=${NOW},v0=${other},v1=${good}`,
  ]) {
    t.deepEqual(
      verifySignature(BODY, header, SECRET, { now: NOW }),
      { valid: true, timestamp: NOW },
      header,
    );
  }
  t.deepEqual(verifySignature(BODY, `t=${NOW},v1=${other},v1=${other}`, SECRET, { now: NOW }), {
    valid: false,
    reason: 'no_matching_signature',
  });
  t.deepEqual(
    verifySignature(BODY, `t=${NOW},v0=${good}`, SECRET, { now: NOW }),
    {
      valid: false,
      reason: 'malformed_header',
    },
    'only v1 is a signature scheme',
  );
});

test('a missing or malformed header is refused with its reason', (t) => {
  const good = computeSignature(SECRET, NOW, BODY);
  for (const header of [undefined, null, '']) {
    t.deepEqual(verifySignature(BODY, header, SECRET, { now: NOW }), {
      valid: false,
      reason: 'missing_header',
    });
  }
  for (const header of [
    'garbage',
    `v1=${good}`,
    `t=${NOW}`,
    `t=,v1=${good}`,
    `t=abc,v1=${good}`,
    `t=-${NOW},v1=${good}`,
    `t=${NOW}.5,v1=${good}`,
    `t=${NOW},v1=`,
    `t=${NOW},v1=${good.slice(0, 63)}`,
    `t=${NOW},v1=${good}00`,
    `t=${NOW},v1=${'z'.repeat(64)}`,
    `${NOW},${good}`,
    `t:${NOW};v1:${good}`,
  ]) {
    const result = verifySignature(BODY, header, SECRET, { now: NOW });
    t.deepEqual(result, { valid: false, reason: 'malformed_header' }, header);
  }
});

test('Buffer bodies verify the same as the string they hold', (t) => {
  const buffer = Buffer.from(BODY, 'utf8');
  const header = signatureHeader(SECRET, BODY, NOW);
  t.is(computeSignature(SECRET, NOW, buffer), computeSignature(SECRET, NOW, BODY));
  t.true(verifySignature(buffer, header, SECRET, { now: NOW }).valid);
  t.true(verifySignature(BODY, signatureHeader(SECRET, buffer, NOW), SECRET, { now: NOW }).valid);
  // Bytes that are not valid UTF-8 are signed as bytes.
  const binary = Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0x7d]);
  const binaryHeader = signatureHeader(SECRET, binary, NOW);
  t.true(verifySignature(binary, binaryHeader, SECRET, { now: NOW }).valid);
  t.false(
    verifySignature(Buffer.from([0x7b, 0xff, 0xfe, 0x01, 0x7d]), binaryHeader, SECRET, { now: NOW })
      .valid,
  );
  const tampered = Buffer.from(buffer);
  tampered[tampered.length - 2] = 0x20;
  t.deepEqual(verifySignature(tampered, header, SECRET, { now: NOW }), {
    valid: false,
    reason: 'no_matching_signature',
  });
});

test('the package entry point exports the receiver helper', (t) => {
  t.is(pkg.verifySignature, verifySignature);
  t.is(pkg.computeSignature, computeSignature);
  t.is(pkg.signatureHeader, signatureHeader);
  t.is(pkg.SIGNATURE_HEADER, 'X-Svc-Signature');
  t.is(pkg.DEFAULT_TOLERANCE_SECONDS, 300);
});
