import { compileAcl, comparePriority, type AclOperation, type Candidate } from '../../../../src/engine/policy/acl';
import { parsePolicy } from '../../../../src/engine/policy/hcl';
import { DEFAULT_POLICY, DEFAULT_POLICY_NAME, ROOT_POLICY, defaultPolicy } from '../../../../src/engine/policy/default-policy';

/** An ACL from policies given as { name: { path: [capabilities] } }. */
function acl(policies: Record<string, Record<string, string[]>>) {
  return compileAcl(
    Object.entries(policies).map(([name, paths]) =>
      parsePolicy(
        name,
        Object.entries(paths)
          .map(([p, caps]) => `path "${p}" { capabilities = ${JSON.stringify(caps)} }`)
          .join('\n'),
      ),
    ),
  );
}

/** The capabilities a single-policy ACL grants on `path`. */
const capsOn = (paths: Record<string, string[]>, path: string): string[] => acl({ p: paths }).capabilities(path);

const OPERATIONS: AclOperation[] = ['read', 'list', 'create', 'update', 'delete'];

describe('capabilities and operations', () => {
  it.each(OPERATIONS)('the %s capability allows exactly the %s operation', (op) => {
    const a = acl({ p: { 'secret/x': [op], 'secret/x/': [op] } });
    for (const other of OPERATIONS) {
      const path = other === 'list' ? 'secret/x/' : 'secret/x';
      expect([other, a.allows(other, path)]).toEqual([other, other === op]);
    }
    expect(a.capabilities('secret/x')).toEqual([op]);
  });

  it('sudo is needed in addition to the operation on sudo routes', () => {
    const plain = acl({ p: { 'sys/audit': ['read'] } });
    expect(plain.allows('read', 'sys/audit')).toBe(true);
    expect(plain.allows('read', 'sys/audit', { sudo: true })).toBe(false);
    const sudo = acl({ p: { 'sys/audit': ['read', 'sudo'] } });
    expect(sudo.allows('read', 'sys/audit', { sudo: true })).toBe(true);
    expect(sudo.allows('update', 'sys/audit', { sudo: true })).toBe(false);
    expect(acl({ p: { 'sys/audit': ['sudo'] } }).allows('read', 'sys/audit', { sudo: true })).toBe(false);
  });

  it('reports patch, subscribe and sudo in sorted order', () => {
    expect(capsOn({ a: ['update', 'subscribe', 'sudo', 'patch', 'create', 'read'] }, 'a')).toEqual(['create', 'patch', 'read', 'subscribe', 'sudo', 'update']);
  });

  it('answers ["deny"] when nothing matches, for deny, and for an empty block', () => {
    expect(capsOn({ a: ['read'] }, 'b')).toEqual(['deny']);
    expect(capsOn({ a: ['deny'] }, 'a')).toEqual(['deny']);
    expect(capsOn({ a: [] }, 'a')).toEqual(['deny']);
    expect(acl({}).capabilities('anything')).toEqual(['deny']);
    expect(acl({}).allows('read', 'anything')).toBe(false);
  });

  it('ignores leading slashes on the request path', () => {
    expect(capsOn({ 'secret/a': ['read'] }, '/secret/a')).toEqual(['read']);
  });
});

describe('globs and segment wildcards', () => {
  it('"*" is a trailing prefix glob', () => {
    const a = acl({ p: { 'secret/*': ['read'] } });
    expect(a.allows('read', 'secret/a')).toBe(true);
    expect(a.allows('read', 'secret/a/b/c')).toBe(true);
    expect(a.allows('read', 'secret/')).toBe(true);
    expect(a.allows('read', 'secret')).toBe(false);
    expect(a.allows('read', 'secrets/a')).toBe(false);
    expect(acl({ p: { 'secret*': ['read'] } }).allows('read', 'secrets/a')).toBe(true);
    expect(capsOn({ '*': ['list'] }, 'any/path/at/all')).toEqual(['list']);
  });

  it('the longest matching prefix wins among globs', () => {
    const a = acl({ p: { 'secret/*': ['read'], 'secret/team/*': ['update'] } });
    expect(a.capabilities('secret/team/x')).toEqual(['update']);
    expect(a.capabilities('secret/other')).toEqual(['read']);
  });

  it('"+" matches exactly one segment', () => {
    const a = acl({ p: { 'secret/+/config': ['read'] } });
    expect(a.allows('read', 'secret/app/config')).toBe(true);
    expect(a.allows('read', 'secret/config')).toBe(false);
    expect(a.allows('read', 'secret/a/b/config')).toBe(false);
    expect(a.allows('read', 'secret/app/config/more')).toBe(false);
    expect(capsOn({ '+': ['read'] }, 'anything')).toEqual(['read']);
    expect(capsOn({ '+': ['read'] }, 'a/b')).toEqual(['deny']);
    expect(capsOn({ '+/b': ['read'] }, 'a/b')).toEqual(['read']);
  });

  it('"+" combines with a trailing "*"', () => {
    const a = acl({ p: { 'secret/+/ab*': ['read'] } });
    expect(a.allows('read', 'secret/x/abc')).toBe(true);
    expect(a.allows('read', 'secret/x/ab/c/d')).toBe(true);
    expect(a.allows('read', 'secret/x/ba')).toBe(false);
    expect(a.allows('read', 'secret/x')).toBe(false);
    expect(capsOn({ 'team/+/*': ['list'] }, 'team/a/')).toEqual(['list']);
  });

  it('LIST paths keep their trailing "/" and still match exact and "+" rules', () => {
    expect(acl({ p: { 'auth/cloud/role': ['list'] } }).allows('list', 'auth/cloud/role/')).toBe(true);
    expect(acl({ p: { 'auth/cloud/role/': ['list'] } }).allows('list', 'auth/cloud/role/')).toBe(true);
    expect(acl({ p: { 'auth/+/role': ['list'] } }).allows('list', 'auth/cloud/role/')).toBe(true);
    expect(acl({ p: { 'auth/cloud/*': ['list'] } }).allows('list', 'auth/cloud/role/')).toBe(true);
    // Only LIST gets the fallback: a read of "a/" does not use a rule for "a".
    expect(acl({ p: { a: ['read'] } }).allows('read', 'a/')).toBe(false);
  });
});

describe('priority among matching rules', () => {
  const base: Candidate = { firstWildcard: 4, isPrefix: false, wildcards: 1, path: 'foo/+/bar', perms: { caps: new Set() } };

  it('an exact match beats every glob', () => {
    const a = acl({ p: { 'secret/a': ['read'], 'secret/*': ['update'], 'secret/+': ['delete'] } });
    expect(a.capabilities('secret/a')).toEqual(['read']);
    expect(a.capabilities('secret/b')).toEqual(['delete']);
  });

  it('rule 1: the first "+" or "*" occurring earlier means lower priority', () => {
    expect(comparePriority({ ...base, firstWildcard: 4 }, { ...base, firstWildcard: 8 })).toBeLessThan(0);
    expect(capsOn({ 'foo/+/baz': ['read'], 'foo/bar/+': ['update'] }, 'foo/bar/baz')).toEqual(['update']);
    expect(capsOn({ 'foo/+': ['read'], 'foo/a*': ['update'] }, 'foo/ab')).toEqual(['update']);
  });

  it('rule 2: ending in "*" means lower priority than not', () => {
    expect(comparePriority({ ...base, isPrefix: true }, base)).toBeLessThan(0);
    expect(capsOn({ 'foo/+/ba*': ['read'], 'foo/+/bar': ['update'] }, 'foo/x/bar')).toEqual(['update']);
    expect(capsOn({ 'foo/*': ['read'], 'foo/+': ['update'] }, 'foo/x')).toEqual(['update']);
  });

  it('rule 3: more "+" segments means lower priority', () => {
    expect(comparePriority({ ...base, wildcards: 2 }, base)).toBeLessThan(0);
    expect(capsOn({ 'foo/+/+/baz': ['read'], 'foo/+/bar/baz': ['update'] }, 'foo/a/bar/baz')).toEqual(['update']);
  });

  it('rule 4: a shorter path means lower priority', () => {
    expect(comparePriority({ ...base, path: 'foo/+/ba' }, base)).toBeLessThan(0);
    expect(capsOn({ 'foo/+/bar/b*': ['read'], 'foo/+/bar/ba*': ['update'] }, 'foo/x/bar/baz')).toEqual(['update']);
  });

  it('rule 5: a lexicographically smaller path means lower priority', () => {
    expect(comparePriority({ ...base, path: 'foo/+/baa' }, { ...base, path: 'foo/+/bab' })).toBeLessThan(0);
    expect(comparePriority(base, { ...base })).toBe(0);
    // "a/+/+/c" < "a/+/b/+" ("+" sorts before "b"); every earlier rule ties.
    expect(capsOn({ 'a/+/+/c': ['read'], 'a/+/b/+': ['update'] }, 'a/x/b/c')).toEqual(['update']);
    expect(capsOn({ 'a/+/b/+': ['update'], 'a/+/+/c': ['read'] }, 'a/x/b/c')).toEqual(['update']);
  });

  it('the most specific rule decides alone, even when it grants less', () => {
    const a = acl({ p: { 'secret/*': ['read', 'update'], 'secret/locked/*': ['deny'] } });
    expect(a.allows('read', 'secret/locked/x')).toBe(false);
    expect(a.allows('read', 'secret/open')).toBe(true);
  });
});

describe('merging across policies', () => {
  it('unions capabilities for the same path string', () => {
    const a = acl({ one: { 'secret/*': ['read'] }, two: { 'secret/*': ['list'], 'secret/+': ['create'] }, three: { 'secret/+': ['update'] } });
    expect(a.capabilities('secret/a/b')).toEqual(['list', 'read']);
    expect(a.capabilities('secret/x')).toEqual(['create', 'update']);
  });

  it('merges repeated blocks inside one policy', () => {
    const a = compileAcl([parsePolicy('p', 'path "a" { capabilities = ["read"] }\npath "a" { capabilities = ["list"] }')]);
    expect(a.capabilities('a')).toEqual(['list', 'read']);
  });

  it('deny in any policy wins for that path, in either order', () => {
    for (const order of [
      ['allow', 'deny'],
      ['deny', 'allow'],
    ]) {
      const defs: Record<string, Record<string, string[]>> = {
        allow: { 'secret/x': ['read', 'update'], 'secret/+': ['read'] },
        deny: { 'secret/x': ['deny'], 'secret/+': ['deny'] },
      };
      const a = acl(Object.fromEntries(order.map((n) => [n, defs[n]])));
      expect(a.capabilities('secret/x')).toEqual(['deny']);
      expect(a.allows('read', 'secret/x')).toBe(false);
      expect(a.capabilities('secret/y')).toEqual(['deny']);
    }
    const later = acl({ d: { a: ['deny'] }, e: { a: ['read'] }, f: { a: ['sudo'] } });
    expect(later.capabilities('a')).toEqual(['deny']);
  });

  it('keeps exact, prefix and segment rules for similar strings apart', () => {
    const a = acl({ p: { 'secret/': ['read'] }, q: { 'secret/*': ['update'] } });
    expect(a.capabilities('secret/')).toEqual(['read']);
    expect(a.capabilities('secret/x')).toEqual(['update']);
  });

  it('describes the merged rules like resultant-acl', () => {
    const a = acl({ p: { 'a/b': ['read'], 'c/*': ['list', 'create'], 'd/+': ['deny'] }, q: { 'a/b': ['update'] } });
    expect(a.resultant()).toEqual({
      root: false,
      exact_paths: { 'a/b': { capabilities: ['read', 'update'] } },
      glob_paths: { 'c/': { capabilities: ['create', 'list'] }, 'd/+': { capabilities: ['deny'] } },
    });
  });
});

describe('built-in policies', () => {
  it('root allows everything, with sudo, and reports ["root"]', () => {
    const a = compileAcl([ROOT_POLICY]);
    expect(a.isRoot).toBe(true);
    expect(a.capabilities('sys/anything')).toEqual(['root']);
    for (const op of OPERATIONS) expect(a.allows(op, 'x/y', { sudo: true })).toBe(true);
    expect(a.resultant()).toEqual({ root: true, exact_paths: {}, glob_paths: {} });
    expect(compileAcl([parsePolicy('p', 'path "*" { capabilities = ["deny"] }'), ROOT_POLICY]).allows('read', 'x')).toBe(true);
  });

  it('the default policy grants token self-service and nothing else', () => {
    expect(DEFAULT_POLICY).toContain('path "auth/token/lookup-self"');
    const a = compileAcl([defaultPolicy()]);
    expect(a.capabilities('auth/token/lookup-self')).toEqual(['read']);
    expect(a.allows('update', 'auth/token/renew-self')).toBe(true);
    expect(a.allows('update', 'auth/token/revoke-self')).toBe(true);
    expect(a.allows('update', 'sys/capabilities-self')).toBe(true);
    expect(a.allows('read', 'sys/internal/ui/resultant-acl')).toBe(true);
    expect(a.allows('update', 'auth/token/lookup-self')).toBe(false);
    expect(a.capabilities('auth/token/create')).toEqual(['deny']);
    expect(a.capabilities('sys/policy/default')).toEqual(['deny']);
    expect(a.allows('list', 'auth/token/')).toBe(false);
  });

  it('the default policy is namespace-relative and combines with others', () => {
    const ns = defaultPolicy('team/');
    expect(ns.name).toBe(DEFAULT_POLICY_NAME);
    const a = compileAcl([ns, parsePolicy('app', 'path "secret/*" { capabilities = ["read"] }', { namespacePath: 'team/' })]);
    expect(a.allows('read', 'team/auth/token/lookup-self')).toBe(true);
    expect(a.allows('read', 'auth/token/lookup-self')).toBe(false);
    expect(a.allows('read', 'team/secret/x')).toBe(true);
  });
});
