import { ApiError } from '../../../../src/schema/errors';
import { CAPABILITIES, parsePolicy, type Policy } from '../../../../src/engine/policy/hcl';

/** The parse error's message, asserting it is a 400 invalid_request ApiError. */
function parseError(text: string): string {
  try {
    parsePolicy('p', text);
  } catch (e) {
    expect(ApiError.isApiError(e)).toBe(true);
    const err = e as ApiError;
    expect(err.code).toBe('invalid_request');
    expect(err.status).toBe(400);
    return err.errors[0];
  }
  throw new Error(`expected a parse error for: ${text}`);
}

const caps = (p: Policy, i = 0): string[] => [...p.rules[i].capabilities].sort();

describe('parsePolicy (HCL)', () => {
  it('parses repeated path blocks with capabilities', () => {
    const p = parsePolicy(
      'app',
      `
path "secret/data/app" {
  capabilities = ["read", "list"]
}
path "auth/token/lookup-self" { capabilities = ["read"] }
`,
    );
    expect(p.name).toBe('app');
    expect(p.rules.map((r) => r.path)).toEqual(['secret/data/app', 'auth/token/lookup-self']);
    expect(caps(p)).toEqual(['list', 'read']);
    expect(p.rules[0]).toMatchObject({ isPrefix: false, hasSegmentWildcard: false });
  });

  it.each(CAPABILITIES.filter((c) => c !== 'deny'))('accepts the %s capability', (cap) => {
    const p = parsePolicy('p', `path "a/b" { capabilities = ["${cap}"] }`);
    expect(caps(p)).toEqual([cap]);
  });

  it('keeps only deny when deny is listed with others', () => {
    const p = parsePolicy('p', 'path "a" { capabilities = ["read", "deny", "update"] }');
    expect(caps(p)).toEqual(['deny']);
  });

  it('flags prefix globs and segment wildcards', () => {
    const p = parsePolicy(
      'p',
      `
path "secret/*" { capabilities = ["read"] }
path "secret/+/config" { capabilities = ["read"] }
path "+/x" { capabilities = ["read"] }
path "+" { capabilities = ["read"] }
path "secret/+/ab*" { capabilities = ["read"] }
path "a+b/c" { capabilities = ["read"] }
`,
    );
    expect(p.rules.map((r) => [r.path, r.isPrefix, r.hasSegmentWildcard])).toEqual([
      ['secret/*', true, false],
      ['secret/+/config', false, true],
      ['+/x', false, true],
      ['+', false, true],
      ['secret/+/ab*', true, true],
      ['a+b/c', false, false], // "+" inside a segment is literal text, as in Vault
    ]);
  });

  it('strips a leading slash and prefixes the namespace path', () => {
    const p = parsePolicy('p', 'path "/secret/x" { capabilities = ["read"] }', { namespacePath: 'team/' });
    expect(p.rules[0].path).toBe('team/secret/x');
  });

  it('accepts #, // and /* */ comments and trailing commas', () => {
    const p = parsePolicy(
      'p',
      `# hash comment
// slash comment
/* block
   comment */ path "a" { # inside
  capabilities = [
    "read", // after an item
    "list", /* trailing comma next */
  ]
}`,
    );
    expect(caps(p)).toEqual(['list', 'read']);
  });

  it('parses and stores the parameter and wrapping keys', () => {
    const p = parsePolicy(
      'p',
      `
path "secret/app" {
  capabilities = ["create", "update"]
  allowed_parameters = {
    "name" = ["alice", "bob"]
    "*" = []
  }
  denied_parameters = { "Admin" = [true], port = [8200] }
  required_parameters = ["name"]
  min_wrapping_ttl = "1m"
  max_wrapping_ttl = 3600
  comment = "app writers"
}`,
    );
    expect(p.rules[0]).toMatchObject({
      allowedParameters: { name: ['alice', 'bob'], '*': [] },
      deniedParameters: { admin: [true], port: [8200] },
      requiredParameters: ['name'],
      minWrappingTtlSeconds: 60,
      maxWrappingTtlSeconds: 3600,
    });
  });

  it('maps the legacy policy shorthand to capabilities', () => {
    const p = parsePolicy('p', 'path "a" { policy = "write" }\npath "b" { policy = "deny" }');
    expect(caps(p, 0)).toEqual(['create', 'delete', 'list', 'read', 'update']);
    expect(caps(p, 1)).toEqual(['deny']);
  });

  it('accepts an empty document and an empty block', () => {
    expect(parsePolicy('p', '  # nothing\n').rules).toEqual([]);
    expect(parsePolicy('p', 'path "a" {}').rules[0].capabilities.size).toBe(0);
  });

  it('decodes string escapes in paths', () => {
    expect(parsePolicy('p', 'path "a\\u002fb\\"c" { capabilities = ["read"] }').rules[0].path).toBe('a/b"c');
  });
});

describe('parsePolicy errors', () => {
  it('names line and column of a missing "{"', () => {
    expect(parseError('path "a" {\n  capabilities = ["read"]\n}\npath "b" capabilities')).toBe('failed to parse policy: line 4, column 10: expected "{", found "capabilities"');
  });

  it('rejects "=" between the path and "{" clearly', () => {
    expect(parseError('path "secret/*" = {\n  capabilities = ["read"]\n}')).toBe(
      'failed to parse policy: line 1, column 17: expected "{" after path "secret/*" (policies write path "<glob>" { ... } with no "=")',
    );
  });

  it('lists the allowed capabilities for an unknown one', () => {
    expect(parseError('path "a" {\n    capabilities = ["read", "write"]\n}')).toBe(
      'failed to parse policy: line 2, column 20: path "a": invalid capability "write" (allowed: create, read, update, delete, list, sudo, deny, patch, subscribe)',
    );
  });

  it('reports unclosed lists, blocks, strings and comments', () => {
    expect(parseError('path "a" {\n  capabilities = ["read" "list"]\n}')).toBe('failed to parse policy: line 2, column 26: expected "," or "]", found "list"');
    expect(parseError('path "a" {\n  capabilities = ["read"]\n')).toMatch(/^failed to parse policy: line 3, column 1: expected a key such as "path", found end of input$/);
    expect(parseError('path "a {')).toBe('failed to parse policy: line 1, column 6: string is not closed with "\\""');
    expect(parseError('path "a" {} /* never closed')).toBe('failed to parse policy: line 1, column 13: comment "/*" is not closed with "*/"');
  });

  it('rejects unknown keys at the top level and inside a path block', () => {
    expect(parseError('\n  role "x" {}')).toBe('failed to parse policy: line 2, column 3: invalid key "role": a policy holds only path "<glob>" { ... } blocks');
    expect(parseError('path "a" {\n  capabilites = ["read"]\n}')).toMatch(
      /^failed to parse policy: line 2, column 3: path "a": invalid key "capabilites" \(allowed: capabilities, /,
    );
  });

  it('rejects a duplicate key in one block', () => {
    expect(parseError('path "a" {\n capabilities = ["read"]\n capabilities = ["list"]\n}')).toBe(
      'failed to parse policy: line 3, column 2: path "a": duplicate key "capabilities"',
    );
  });

  it('rejects malformed values', () => {
    expect(parseError('path "a" { capabilities = ["read"],, }')).toBe('failed to parse policy: line 1, column 36: expected a key such as "path", found ","');
    expect(parseError('path "a" { capabilities = [1] }')).toBe('failed to parse policy: line 1, column 28: path "a": capabilities must be a list of strings');
    expect(parseError('path "a" { max_wrapping_ttl = "soon" }')).toMatch(/^failed to parse policy: line 1, column 31: path "a": max_wrapping_ttl: time: invalid duration "soon"/);
    expect(parseError('path "a" { min_wrapping_ttl = "2m"\n max_wrapping_ttl = "1m" }')).toBe(
      'failed to parse policy: line 1, column 1: path "a": max_wrapping_ttl cannot be less than min_wrapping_ttl',
    );
    expect(parseError('path "a" { allowed_parameters = ["x"] }')).toMatch(/allowed_parameters must be an object/);
    expect(parseError('path "a" { policy = "admin" }')).toMatch(/policy must be one of deny, read, write, sudo/);
    expect(parseError('path "a" { capabilities = [@] }')).toBe('failed to parse policy: line 1, column 28: unexpected character "@"');
  });

  it('rejects path blocks with no or several path strings', () => {
    expect(parseError('path { capabilities = ["read"] }')).toBe(
      'failed to parse policy: line 1, column 1: expected one path string after "path", as in path "secret/*" { ... }, found 0',
    );
    expect(parseError('\npath "a" "b" { capabilities = ["read"] }')).toMatch(/^failed to parse policy: line 2, column 1: expected one path string .* found 2$/);
    expect(parseError('path = { "a" = ["read"] }')).toMatch(/line 1, column 16: path "a": expected a block/);
  });

  it("forbids '+*'", () => {
    expect(parseError('path "a/+*" { capabilities = ["read"] }')).toBe('failed to parse policy: line 1, column 1: path "a/+*": invalid use of wildcards (\'+*\' is forbidden)');
  });
});

describe('parsePolicy (JSON)', () => {
  it('parses the object form', () => {
    const p = parsePolicy('j', JSON.stringify({ path: { 'secret/*': { capabilities: ['read'] }, 'sys/+/x': { capabilities: ['list', 'sudo'] } } }));
    expect(p.rules.map((r) => [r.path, [...r.capabilities].sort(), r.isPrefix, r.hasSegmentWildcard])).toEqual([
      ['secret/*', ['read'], true, false],
      ['sys/+/x', ['list', 'sudo'], false, true],
    ]);
  });

  it('parses the list-of-objects form and the parameter keys', () => {
    const text = JSON.stringify(
      {
        path: [{ a: { capabilities: ['update'], allowed_parameters: { k: ['v'] }, max_wrapping_ttl: '1h' } }, { b: { capabilities: ['deny', 'read'] } }],
      },
      null,
      2,
    );
    const p = parsePolicy('j', text);
    expect(p.rules[0]).toMatchObject({ path: 'a', allowedParameters: { k: ['v'] }, maxWrappingTtlSeconds: 3600 });
    expect(caps(p, 1)).toEqual(['deny']);
  });

  it('reports JSON errors with line and column', () => {
    expect(parseError('{\n  "path": {\n    "a": {"capabilities": ["read"]}\n  }\n')).toBe(
      'failed to parse policy: line 5, column 1: expected a key such as "path", found end of input',
    );
    expect(parseError('{\n  "path": {\n    "a": {"capabilities" ["read"]}\n  }\n}')).toBe('failed to parse policy: line 3, column 26: expected ":", found "["');
    expect(parseError('{"path": {"a": {"capabilities": ["fly"]}}}')).toMatch(/^failed to parse policy: line 1, column 33: path "a": invalid capability "fly"/);
    expect(parseError('{"paths": {}}')).toMatch(/invalid key "paths"/);
    expect(parseError('{"path": "a"}')).toMatch(/line 1, column 10: expected path "<glob>"/);
  });
});
