import { RouteTable } from '../../../../src/engine/http/router';

const table = new RouteTable([
  { pattern: 'role/:name/labels', operations: {} },
  { pattern: 'role/:name', operations: {} },
  { pattern: 'roles/?', operations: {} },
  { pattern: 'sys/auth/:path*', operations: {} },
]);

it('matches Vault name segments, rest captures and optional trailing slashes', () => {
  expect(table.match('role/web-1.a')?.params).toEqual({ name: 'web-1.a' });
  expect(table.match('role/web/labels')?.route.pattern).toBe('role/:name/labels');
  expect(table.match('role/-bad')).toBeUndefined();
  expect(table.match('role/bad-')).toBeUndefined();
  expect(table.match('roles/')?.route.pattern).toBe('roles/?');
  expect(table.match('roles')?.route.pattern).toBe('roles/?');
  expect(table.match('sys/auth/team/a')?.params).toEqual({ path: 'team/a' });
  expect(table.match('role/a%20b')).toBeUndefined();
});
