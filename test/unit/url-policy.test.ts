// The outbound address policy (daemon/outbound/url-policy.ts): which addresses production may
// connect to, in IPv4, IPv6 and IPv4-mapped forms, and which URLs it accepts when they are stored.
import test from 'ava';
import { ApiError } from '../../daemon/domain/errors.js';
import {
  checkOutboundUrl,
  isPrivateHost,
  isPublicAddress,
} from '../../daemon/outbound/url-policy.js';

const REFUSED = [
  '127.0.0.1',
  '127.255.0.9',
  '10.0.0.1',
  '172.16.5.4',
  '172.31.255.255',
  '192.168.0.1',
  '169.254.169.254',
  '100.64.0.1',
  '100.127.255.254',
  '0.0.0.0',
  '224.0.0.251',
  '255.255.255.255',
  '::1',
  '::',
  'fc00::1',
  'fd12:3456::1',
  'fe80::1',
  'ff02::1',
  '::ffff:127.0.0.1',
  '::ffff:10.0.0.1',
  '::ffff:a9fe:a9fe',
  '64:ff9b::7f00:1',
  '2002:7f00:1::1',
];

const PUBLIC = ['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111'];

test('private, loopback, link-local, unique-local, CGNAT, multicast and unspecified are refused', (t) => {
  for (const address of REFUSED) t.false(isPublicAddress(address), address);
  for (const address of PUBLIC) t.true(isPublicAddress(address), address);
  t.false(isPublicAddress('not an address'));
});

test('host names: localhost names and literal private addresses are private; other names are left to connect time', (t) => {
  for (const host of ['localhost', 'api.localhost', 'printer.local', '[::1]', '10.1.1.1']) {
    t.true(isPrivateHost(host), host);
  }
  for (const host of ['example.com', 'hooks.example.test', '8.8.8.8', '[2606:4700::1]']) {
    t.false(isPrivateHost(host), host);
  }
});

test('production refuses http:// and private literals unless private networks are allowed', (t) => {
  const production = { environment: 'production' as const, allowPrivateNetwork: false };
  t.is(checkOutboundUrl('https://example.com/hook', production), 'https://example.com/hook');
  for (const url of ['http://example.com/', 'https://[::ffff:7f00:1]/', 'https://0x7f000001/']) {
    const error = t.throws(() => checkOutboundUrl(url, production), { instanceOf: ApiError });
    t.is(error?.code, 'invalid_url', url);
  }
  const allowing = { environment: 'production' as const, allowPrivateNetwork: true };
  t.is(checkOutboundUrl('https://127.0.0.1/', allowing), 'https://127.0.0.1/');
  const sandbox = { environment: 'sandbox' as const, allowPrivateNetwork: false };
  t.is(checkOutboundUrl('http://localhost:4000/', sandbox), 'http://localhost:4000/');
});

test('a scheme other than http(s) is refused naming what the environment accepts', (t) => {
  const refusal = (url: string, environment: 'sandbox' | 'production') =>
    t.throws(() => checkOutboundUrl(url, { environment, allowPrivateNetwork: false }), {
      instanceOf: ApiError,
    })?.message;
  t.is(
    refusal('file:///etc/passwd', 'sandbox'),
    'The URL must use http:// or https:// in the sandbox environment (got file:).',
  );
  t.is(
    refusal('ftp://example.com/x', 'production'),
    'The URL must use https:// in the production environment (got ftp:).',
  );
  t.is(
    refusal('not a url', 'sandbox'),
    "'not a url' is not a valid URL. Use an absolute http:// or https:// URL.",
  );
  t.is(
    refusal('not a url', 'production'),
    "'not a url' is not a valid URL. Use an absolute https:// URL.",
  );
});
