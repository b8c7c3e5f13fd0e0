// Every CloudAuthRole validation rule has a failing case; problems are all reported at once with
// the construct path; unresolved tokens are not validated.

import { TerraformVariable } from 'cdktf';
import { CloudAuthBackend, CloudAuthRole, type CloudAuthRoleProps } from '../../../constructs';
import { cloudAuthRoleRules } from '../../../constructs/cloud-auth-role-rules';
import { KeywardValidationError } from '../../../constructs/validation';
import { newStack, problemsOf, serverInOtherStack } from './fixtures';

/** A backend on a server in another stack of the same app. */
function otherBackend(b: CloudAuthBackend): CloudAuthBackend {
  const server = serverInOtherStack(b);
  return new CloudAuthBackend(server.node.scope!, 'cloud', { server });
}

function setup() {
  const { stack, server } = newStack();
  const backend = new CloudAuthBackend(stack, 'cloud', { server });
  return { stack, backend };
}

const SA = ['app@proj.iam.gserviceaccount.com'];
type Loose = Record<string, unknown>;

/** rule id -> props (given the backend) that break exactly that rule, and a fragment of the message. */
const failing: Record<string, { props: (b: CloudAuthBackend) => Loose; message: RegExp }> = {
  'unknown-props': {
    props: (b) => ({ type: 'iam', backend: b, boundServiceAccounts: SA, tokenPolicy: ['app'] }),
    message: /unknown prop tokenPolicy \(did you mean tokenPolicies\?\)/,
  },
  'backend-same-stack': { props: (b) => ({ type: 'vm', backend: otherBackend(b) }), message: /backend other\/cloud belongs to stack other, not to this construct's stack test/ },
  'backend-required': { props: () => ({ type: 'iam', backend: {}, boundServiceAccounts: SA }), message: /backend must be a CloudAuthBackend/ },
  'role-name': { props: (b) => ({ type: 'iam', backend: b, boundServiceAccounts: SA, roleName: 'bad name!' }), message: /roleName "bad name!"/ },
  'role-name-unique': { props: (b) => ({ type: 'iam', backend: b, boundServiceAccounts: SA, roleName: 'Taken' }), message: /already used on mount "cloud" by test\/taken/ },
  type: { props: (b) => ({ type: 'gce', backend: b }), message: /type must be "iam" or "vm"/ },
  'other-type-fields': {
    props: (b) => ({ type: 'iam', backend: b, boundServiceAccounts: SA, boundZones: ['z'], boundLabels: ['a:b'] }),
    message: /boundZones, boundLabels are not valid for a role of type iam/,
  },
  'iam-service-accounts': { props: (b) => ({ type: 'iam', backend: b, boundServiceAccounts: [] }), message: /at least one service account/ },
  'duration-syntax': { props: (b) => ({ type: 'vm', backend: b, tokenTtl: '1 hour' }), message: /tokenTtl: time: invalid duration "1 hour"/ },
  'max-jwt-exp-limit': { props: (b) => ({ type: 'iam', backend: b, boundServiceAccounts: SA, maxJwtExp: '2h' }), message: /maxJwtExp cannot be more than 60 minutes/ },
  'ttl-within-max-ttl': {
    props: (b) => ({ type: 'vm', backend: b, tokenTtl: '2h', tokenMaxTtl: 3600 }),
    message: /tokenTtl \(7200s\) cannot be greater than tokenMaxTtl \(3600s\)/,
  },
  'num-uses': { props: (b) => ({ type: 'vm', backend: b, tokenNumUses: -1 }), message: /tokenNumUses must be a whole number >= 0/ },
  'token-type': { props: (b) => ({ type: 'vm', backend: b, tokenType: 'default-service' }), message: /tokenType must be one of default, service, batch/ },
  'batch-token-limits': { props: (b) => ({ type: 'vm', backend: b, tokenType: 'batch', tokenPeriod: '1h' }), message: /batch tokens are not periodic/ },
  'cidr-syntax': {
    props: (b) => ({ type: 'vm', backend: b, tokenBoundCidrs: ['10.0.0.0/8', '10.0.0.300/32'] }),
    message: /tokenBoundCidrs: invalid CIDR or IP address "10.0.0.300\/32"/,
  },
  'label-format': { props: (b) => ({ type: 'vm', backend: b, boundLabels: { Env: 'prod', team: 'a b' } }), message: /invalid labels \["Env:prod","team:a b"\]/ },
  'instance-groups-need-location': { props: (b) => ({ type: 'vm', backend: b, boundInstanceGroups: ['g1'] }), message: /boundInstanceGroups needs boundZones or boundRegions/ },
};

describe('CloudAuthRole validation rules', () => {
  it('has a failing case for every rule in the table', () => {
    expect(Object.keys(failing).sort()).toEqual(cloudAuthRoleRules.map((r) => r.id).sort());
  });

  it.each(Object.entries(failing))('%s fails with a message naming the field', (_id, c) => {
    const { stack, backend } = setup();
    CloudAuthRole.iam(stack, 'taken', { backend, boundServiceAccounts: SA });
    const problems = problemsOf(() => new CloudAuthRole(stack, 'role', c.props(backend) as unknown as CloudAuthRoleProps));
    expect(problems.join('\n')).toMatch(c.message);
  });

  it('reports every failure at once with the construct path', () => {
    const { stack, backend } = setup();
    let err: unknown;
    try {
      CloudAuthRole.vm(stack, 'multi', { backend, tokenTtl: 'soon', tokenBoundCidrs: ['nope'], boundInstanceGroups: ['g'] });
    } catch (e) {
      err = e;
    }
    expect(KeywardValidationError.isKeywardValidationError(err)).toBe(true);
    const e = err as KeywardValidationError;
    expect(e.problems).toHaveLength(3);
    expect(e.message).toContain('CloudAuthRole at test/multi failed validation');
  });

  it('accepts valid iam and vm roles', () => {
    const { stack, backend } = setup();
    expect(
      problemsOf(() =>
        CloudAuthRole.iam(stack, 'web', { backend, boundServiceAccounts: ['*'], maxJwtExp: '30m', tokenTtl: 900, tokenMaxTtl: '1h', tokenBoundCidrs: ['192.0.2.7', '10.0.0.0/8'] }),
      ),
    ).toEqual([]);
    expect(problemsOf(() => CloudAuthRole.vm(stack, 'batch', { backend, boundRegions: ['europe-west1'], boundInstanceGroups: ['g'], boundLabels: ['env:prod', 'tier:'] }))).toEqual(
      [],
    );
  });

  it('does not validate unresolved tokens', () => {
    const { stack, backend } = setup();
    const ttl = new TerraformVariable(stack, 'ttl', { type: 'string' });
    const cidrs = new TerraformVariable(stack, 'cidrs', { type: 'list(string)' });
    expect(problemsOf(() => CloudAuthRole.vm(stack, 'tok', { backend, tokenTtl: ttl.stringValue, tokenBoundCidrs: cidrs.listValue, boundZones: [ttl.stringValue] }))).toEqual([]);
  });

  it('refuses a role name given as a token (it identifies the role)', () => {
    const { stack, backend } = setup();
    const name = new TerraformVariable(stack, 'name', { type: 'string' });
    expect(problemsOf(() => CloudAuthRole.vm(stack, 'tok', { backend, roleName: name.stringValue })).join()).toMatch(/roleName must be known at synth time/);
  });

  it('refuses fractional seconds in every duration prop, with the construct path', () => {
    const { stack, backend } = setup();
    let err: unknown;
    try {
      CloudAuthRole.iam(stack, 'frac', { backend, boundServiceAccounts: SA, tokenTtl: 1.5, tokenMaxTtl: 7200.25, tokenPeriod: 0.5, maxJwtExp: 60.1 });
    } catch (e) {
      err = e;
    }
    expect(KeywardValidationError.isKeywardValidationError(err)).toBe(true);
    const e = err as KeywardValidationError;
    expect(e.message).toContain('CloudAuthRole at test/frac failed validation');
    expect(e.problems).toEqual([
      'tokenTtl: 1.5 is not a whole number of seconds (give whole seconds, such as 2, or a duration string such as "90s")',
      'tokenMaxTtl: 7200.25 is not a whole number of seconds (give whole seconds, such as 7200, or a duration string such as "90s")',
      'tokenPeriod: 0.5 is not a whole number of seconds (give whole seconds, such as 1, or a duration string such as "90s")',
      'maxJwtExp: 60.1 is not a whole number of seconds (give whole seconds, such as 60, or a duration string such as "90s")',
    ]);
  });

  it('reports a misspelled prop with the other failures at once, naming the construct path', () => {
    const { stack, backend } = setup();
    let err: unknown;
    try {
      // What a JavaScript caller (or `as any`) can write: the prop is misspelled and tokenTtl is fractional.
      new CloudAuthRole(stack, 'typo', { type: 'iam', backend, boundServiceAccounts: SA, tokenPolicy: ['app'], tokenTtl: 1.5 } as unknown as CloudAuthRoleProps);
    } catch (e) {
      err = e;
    }
    const e = err as KeywardValidationError;
    expect(e.message).toContain('CloudAuthRole at test/typo failed validation');
    expect(e.problems).toHaveLength(2);
    expect(e.problems[0]).toMatch(/^unknown prop tokenPolicy \(did you mean tokenPolicies\?\); known props: type, backend, roleName/);
    expect(e.problems[1]).toMatch(/^tokenTtl: 1.5 is not a whole number of seconds/);
  });

  it('gives no hint for a name close to nothing known', () => {
    const { stack, backend } = setup();
    const problems = problemsOf(() => new CloudAuthRole(stack, 'odd', { type: 'vm', backend, frobnicate: true } as unknown as CloudAuthRoleProps));
    expect(problems).toEqual([expect.stringMatching(/^unknown prop frobnicate; known props:/)]);
  });
});
