// Every CloudAuthBackend validation rule has a failing case; secret problems never quote the value.

import { TerraformVariable } from 'cdktf';
import { CloudAuthBackend, type CloudAuthBackendProps, KeywardServer } from '../../../constructs';
import { cloudAuthBackendRules } from '../../../constructs/cloud-auth-backend-rules';
import { newStack, problemsOf, serverInOtherStack, serviceAccountKeyJson, withEnv } from './fixtures';

const NOT_A_KEY = 'this-is-not-json-but-secret';
withEnv({ KW_TEST_NOT_A_KEY: NOT_A_KEY });

type Loose = Record<string, unknown>;
const failing: Record<string, { props: (s: KeywardServer) => Loose; message: RegExp }> = {
  'server-required': { props: () => ({ server: {} }), message: /server must be a KeywardServer/ },
  'server-same-stack': { props: (s) => ({ server: serverInOtherStack(s) }), message: /server other\/server belongs to stack other, not to this construct's stack test/ },
  'unknown-props': {
    props: (s) => ({ server: s, exclusiveRole: true, config: { iamAlias: 'unique_id', vmAlias: 'id', iamMetdata: ['role'] } }),
    message: /unknown prop exclusiveRole \(did you mean exclusiveRoles\?\)[\s\S]*unknown prop config.iamMetdata \(did you mean config.iamMetadata\?\)/,
  },
  'path-format': { props: (s) => ({ server: s, path: '/cloud/' }), message: /path "\/cloud\/" must be a mount path/ },
  'path-unique': { props: (s) => ({ server: s, path: 'taken' }), message: /path "taken" is already mounted on this server by test\/first/ },
  secrets: {
    props: (s) => ({ server: s, config: { credentials: 'a value in no environment variable' } }),
    message: /config.credentials: the secret value is not in any environment variable/,
  },
  'credentials-format': { props: (s) => ({ server: s, config: { credentials: NOT_A_KEY } }), message: /config.credentials: failed to read credentials: invalid JSON/ },
  'alias-values': { props: (s) => ({ server: s, config: { iamAlias: 'email', vmAlias: 'name' } }), message: /invalid IAM alias type "email"[\s\S]*invalid VM alias type "name"/ },
  'metadata-names': {
    props: (s) => ({ server: s, config: { iamMetadata: ['role', 'zone'], vmMetadata: ['default', 'zone'] } }),
    message: /iamMetadata: failed to parse iam metadata: "zone" contains an unavailable field[\s\S]*vmMetadata: .*default can't be used in combination/,
  },
  'custom-endpoints': {
    props: (s) => ({ server: s, config: { customEndpoints: { iam: 'ftp://x', storage: 'https://y' } } }),
    message: /scheme must be http or https[\s\S]*unknown key "storage"/,
  },
  'moved-from-format': { props: (s) => ({ server: s, movedFrom: '/old/' }), message: /movedFrom "\/old\/" must be a mount path/ },
  durations: {
    props: (s) => ({ server: s, maxLeaseTtl: 'forever', config: { rotationPeriod: 1.5 } }),
    message: /maxLeaseTtl: time: invalid duration "forever"[\s\S]*config.rotationPeriod: 1.5 is not a whole number/,
  },
  'mount-tune-values': {
    props: (s) => ({ server: s, tokenType: 'default', listingVisibility: 'public' }),
    message: /tokenType must be one of default-service, default-batch, service, batch[\s\S]*listingVisibility must be "unauth" or "hidden"/,
  },
  'wif-and-rotation': {
    props: (s) => ({ server: s, config: { identityTokenAudience: '//iam.googleapis.com/x', rotationSchedule: '0 * * * *', rotationPeriod: '1h' } }),
    message:
      /mutually exclusive fields config.rotationSchedule and config.rotationPeriod[\s\S]*missing required 'config.serviceAccountEmail' when 'config.identityTokenAudience' is set/,
  },
  'removal-policy': { props: (s) => ({ server: s, removalPolicy: 'keep' }), message: /removalPolicy must be RemovalPolicy.DESTROY or RemovalPolicy.RETAIN/ },
};

describe('CloudAuthBackend validation rules', () => {
  it('has a failing case for every rule in the table', () => {
    expect(Object.keys(failing).sort()).toEqual(cloudAuthBackendRules.map((r) => r.id).sort());
  });

  it.each(Object.entries(failing))('%s fails', (_id, c) => {
    const { stack, server } = newStack();
    new CloudAuthBackend(stack, 'first', { server, path: 'taken' });
    const problems = problemsOf(() => new CloudAuthBackend(stack, 'b', c.props(server) as unknown as CloudAuthBackendProps));
    expect(problems.join('\n')).toMatch(c.message);
    expect(problems.join('\n')).not.toContain(NOT_A_KEY);
  });

  describe('valid config', () => {
    const key = serviceAccountKeyJson();
    withEnv({ KW_TEST_CREDS: key });
    it('accepts a full config with credentials from the environment', () => {
      const { stack, server } = newStack();
      const problems = problemsOf(
        () =>
          new CloudAuthBackend(stack, 'b', {
            server,
            path: 'team/cloud',
            description: 'd',
            config: { credentials: key, iamAlias: 'unique_id', iamMetadata: [], vmMetadata: ['default'], customEndpoints: { iam: 'http://127.0.0.1:9000' } },
            exclusiveRoles: true,
          }),
      );
      expect(problems).toEqual([]);
    });
  });

  it('accepts credentials from a sensitive TerraformVariable and refuses a non-sensitive one', () => {
    const { stack, server } = newStack();
    const good = new TerraformVariable(stack, 'creds', { type: 'string', sensitive: true });
    const bad = new TerraformVariable(stack, 'plain', { type: 'string' });
    expect(problemsOf(() => new CloudAuthBackend(stack, 'b1', { server, path: 'a', config: { credentials: good.stringValue } }))).toEqual([]);
    expect(problemsOf(() => new CloudAuthBackend(stack, 'b2', { server, path: 'b', config: { credentials: bad.stringValue } })).join()).toMatch(
      /TerraformVariable "plain" must be declared with sensitive: true/,
    );
  });
});
