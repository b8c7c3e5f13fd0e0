import { addressInCidrs, canonicalCidr } from '../../../src/schema/cidr';

it('canonicalizes CIDRs and host addresses', () => {
  expect(canonicalCidr('10.1.2.3/8')).toBe('10.0.0.0/8');
  expect(canonicalCidr('192.0.2.7')).toBe('192.0.2.7/32');
  expect(canonicalCidr('192.0.2.7/32')).toBe('192.0.2.7/32');
  expect(canonicalCidr('2001:db8::1')).toBe('2001:db8::1/128');
  expect(() => canonicalCidr('10.0.0.0/33')).toThrow(/invalid CIDR/);
  expect(() => canonicalCidr('nope')).toThrow(/"nope"/);
});

it('matches client addresses, including IPv4-mapped IPv6', () => {
  expect(addressInCidrs('::ffff:127.0.0.1', ['127.0.0.0/8'])).toBe(true);
  expect(addressInCidrs('127.0.0.1', ['10.0.0.0/8'])).toBe(false);
  expect(addressInCidrs('::1', ['::1/128'])).toBe(true);
  expect(addressInCidrs('anything', [])).toBe(true);
  expect(addressInCidrs('garbage', ['10.0.0.0/8'])).toBe(false);
});
