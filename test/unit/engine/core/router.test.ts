import { RouteTable } from '../../../../src/engine/core/router';

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

it('keeps table order for parameterless routes shadowed by an earlier pattern', () => {
  const shadowed = new RouteTable([
    { pattern: 'role/:name', operations: {} },
    { pattern: 'role/login', operations: {} },
    { pattern: 'login', operations: {} },
  ]);
  const a = shadowed.match('role/login');
  expect(a?.route.pattern).toBe('role/:name');
  expect(a?.params).toEqual({ name: 'login' });
  a!.params.name = 'changed'; // each match gets its own params
  expect(shadowed.match('role/login')?.params).toEqual({ name: 'login' });
  expect(shadowed.match('login')?.route.pattern).toBe('login');
  expect(shadowed.match('login/')).toBeUndefined();
});
