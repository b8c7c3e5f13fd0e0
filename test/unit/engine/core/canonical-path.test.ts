// The canonical request path (issue 32): decoded once, and unclean forms redirected to what Go's
// cleanPath makes of them.

import { canonicalPath, cleanPath } from '../../../../src/engine/core/canonical-path';

it.each([
  ['/v1/sys/auth', '/v1/sys/auth'],
  ['/v1/sys/auth/', '/v1/sys/auth/'],
  ['/v1//sys/auth', '/v1/sys/auth'],
  ['/v1/sys/./auth', '/v1/sys/auth'],
  ['/v1/sys/x/../auth', '/v1/sys/auth'],
  ['/v1/sys/auth/.', '/v1/sys/auth'],
  ['/v1/sys/auth/..', '/v1/sys'],
  ['/v1/sys/auth/./', '/v1/sys/auth/'],
  ['/v1/x/..//', '/v1/'],
  ['/..', '/'],
  ['', '/'],
])('cleanPath(%j) is %j, as Go', (input, out) => {
  expect(cleanPath(input)).toBe(out);
});

it('decodes once, keeps clean paths, redirects unclean ones with the query and re-escaped "?" and "#"', () => {
  expect(canonicalPath('/v1/sys/auth/%70rod', undefined)).toEqual({ path: '/v1/sys/auth/prod' });
  expect(canonicalPath('/v1/sys/auth/%2570rod', undefined)).toEqual({ path: '/v1/sys/auth/%70rod' });
  expect(canonicalPath('/v1/identity/oidc/plugins/.well-known/keys', undefined)).toEqual({ path: '/v1/identity/oidc/plugins/.well-known/keys' });
  expect(canonicalPath('/v1/sys/%2e%2e/x', 'list=true')).toEqual({ redirect: '/v1/x?list=true' });
  expect(canonicalPath('/v1//a%3Fb%23c', undefined)).toEqual({ redirect: '/v1/a%3Fb%23c' });
  expect(canonicalPath('http://host/v1/sys/health', undefined)).toEqual({ path: 'http://host/v1/sys/health' });
  expect(() => canonicalPath('/v1/sys/%zz', undefined)).toThrow(/invalid percent-encoding/);
});
