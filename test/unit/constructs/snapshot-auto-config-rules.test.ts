// Every SnapshotAutoConfig validation rule has a failing case; tokens are not validated.

import { TerraformVariable } from 'cdktf';
import { CloudThreeAuthMode, KeywardServer, SnapshotAutoConfig, type SnapshotAutoConfigProps, SnapshotStorage } from '../../../constructs';
import { snapshotAutoConfigRules } from '../../../constructs/snapshot-auto-config-rules';
import { newStack, problemsOf, serverInOtherStack, withEnv } from './fixtures';

const AZ_KEY = 'azure-account-key-for-rules-test';
withEnv({ KW_TEST_AZ_KEY: AZ_KEY, KW_TEST_NOT_JSON: 'not-json-secret', KW_TEST_PLACEHOLDER: 'wJalr…' });

const local = SnapshotStorage.local({ maxSpaceBytes: 1 << 30 });
const azure = SnapshotStorage.cloudThree({ containerName: 'c', accountName: 'a', accountKey: AZ_KEY });
type Loose = Record<string, unknown>;

const failing: Record<string, { props: (s: KeywardServer) => Loose; message: RegExp }> = {
  'server-required': { props: () => ({ server: undefined, interval: '1h', pathPrefix: '/d', storage: local }), message: /server must be a KeywardServer/ },
  'server-same-stack': {
    props: (s) => ({ server: serverInOtherStack(s), interval: '1h', pathPrefix: '/d', storage: local }),
    message: /server other\/server belongs to stack other/,
  },
  'unknown-props': { props: (s) => ({ server: s, interval: '1h', pathPrefix: '/d', storage: local, retian: 3 }), message: /unknown prop retian \(did you mean retain\?\)/ },
  'config-name': { props: (s) => ({ server: s, configName: 'a/b', interval: '1h', pathPrefix: '/d', storage: local }), message: /configName: name "a\/b" is invalid/ },
  'config-name-unique': {
    props: (s) => ({ server: s, configName: 'taken', interval: '1h', pathPrefix: '/d', storage: local }),
    message: /configName "taken" is already used on this server by test\/taken/,
  },
  'storage-choice': { props: (s) => ({ server: s, interval: '1h', pathPrefix: '/d', storage: { storageType: 'ftp' } }), message: /storage must be SnapshotStorage.local/ },
  'interval-syntax': { props: (s) => ({ server: s, interval: 'daily', pathPrefix: '/d', storage: local }), message: /interval: time: invalid duration "daily"/ },
  'retain-min': { props: (s) => ({ server: s, interval: '1h', retain: 0, pathPrefix: '/d', storage: local }), message: /retain must be a whole number >= 1 \(got 0\)/ },
  'required-per-storage-type': {
    props: (s) => ({ server: s, interval: '1h', pathPrefix: '', storage: SnapshotStorage.cloudOne({ bucket: '', region: undefined as unknown as string }) }),
    message: /pathPrefix is required[\s\S]*cloudOne\(\{ bucket \}\) is required for storage type cloudone-store[\s\S]*cloudOne\(\{ region \}\) is required/,
  },
  'cloudone-options': {
    props: (s) => ({
      server: s,
      interval: '1h',
      pathPrefix: 'p',
      storage: SnapshotStorage.cloudOne({ bucket: 'b', region: 'r', accessKeyId: 'AK', enableKms: true, serverSideEncryption: true }),
    }),
    message: /mutually exclusive[\s\S]*accessKeyId and secretAccessKey must be set together/,
  },
  'header-safe': {
    props: (s) => ({
      server: s,
      interval: '1h',
      pathPrefix: 'p',
      storage: SnapshotStorage.cloudOne({ bucket: 'b', region: 'r', accessKeyId: 'AKIA…', secretAccessKey: 'wJalr…' }),
    }),
    message:
      /SnapshotStorage.cloudOne\(\{ accessKeyId \}\) holds a character an HTTP header cannot carry \(at position 5[^\n]*\n[\s\S]*SnapshotStorage.cloudOne\(\{ secretAccessKey \}\) holds a character an HTTP header cannot carry \(at position 6/,
  },
  'cloudtwo-key-json': {
    props: (s) => ({ server: s, interval: '1h', pathPrefix: 'p/', storage: SnapshotStorage.cloudTwo({ bucket: 'b', serviceAccountKey: 'not-json-secret' }) }),
    message: /serviceAccountKey must be a JSON object/,
  },
  secrets: {
    props: (s) => ({ server: s, interval: '1h', pathPrefix: 'p/', storage: SnapshotStorage.cloudThree({ containerName: 'c', accountName: 'a', accountKey: 'in-no-env-var' }) }),
    message: /cloudthree_account_key: the secret value is not in any environment variable/,
  },
  autoload: {
    props: (s) => ({ server: s, interval: '1h', pathPrefix: '/d', autoloadEnabled: true, storage: local }),
    message: /autoloadEnabled is not supported for local storage/,
  },
  'cloudthree-auth-mode': {
    props: (s) => ({
      server: s,
      interval: '1h',
      pathPrefix: 'p/',
      storage: SnapshotStorage.cloudThree({ containerName: 'c', accountName: 'a', authMode: CloudThreeAuthMode.MANAGED }),
    }),
    message: /clientId is required with authMode MANAGED/,
  },
  'removal-policy': { props: (s) => ({ server: s, interval: '1h', pathPrefix: '/d', storage: local, removalPolicy: 'never' }), message: /removalPolicy must be/ },
};

describe('SnapshotAutoConfig validation rules', () => {
  it('has a failing case for every rule in the table', () => {
    expect(Object.keys(failing).sort()).toEqual(snapshotAutoConfigRules.map((r) => r.id).sort());
  });

  it.each(Object.entries(failing))('%s fails', (_id, c) => {
    const { stack, server } = newStack();
    new SnapshotAutoConfig(stack, 'taken', { server, interval: 60, pathPrefix: '/d', storage: local });
    const problems = problemsOf(() => new SnapshotAutoConfig(stack, 'cfg', c.props(server) as unknown as SnapshotAutoConfigProps));
    expect(problems.join('\n')).toMatch(c.message);
    expect(problems.join('\n')).not.toMatch(/not-json-secret|in-no-env-var/);
  });

  it('accepts each storage type', () => {
    const { stack, server } = newStack();
    const ok = (id: string, p: Omit<SnapshotAutoConfigProps, 'server'>) => expect(problemsOf(() => new SnapshotAutoConfig(stack, id, { server, ...p }))).toEqual([]);
    ok('local', { interval: '1h', retain: 24, pathPrefix: '/var/snap', storage: local });
    ok('s3', { interval: 3600, pathPrefix: 'k', storage: SnapshotStorage.cloudOne({ bucket: 'b', region: 'eu-west-1' }) });
    ok('gcs', { interval: '24h', pathPrefix: 'k/', storage: SnapshotStorage.cloudTwo({ bucket: 'b' }) });
    ok('azure', { interval: '7d', pathPrefix: 'k/', storage: azure, filePrefix: 'nightly' });
  });

  it('does not validate unresolved tokens', () => {
    const { stack, server } = newStack();
    const v = new TerraformVariable(stack, 'v', { type: 'string' });
    const n = new TerraformVariable(stack, 'n', { type: 'number' });
    expect(
      problemsOf(
        () =>
          new SnapshotAutoConfig(stack, 't', {
            server,
            interval: v.stringValue,
            retain: n.numberValue,
            pathPrefix: v.stringValue,
            storage: SnapshotStorage.cloudTwo({ bucket: v.stringValue }),
          }),
      ),
    ).toEqual([]);
  });

  it('refuses a fractional interval', () => {
    const { stack, server } = newStack();
    expect(problemsOf(() => new SnapshotAutoConfig(stack, 'frac', { server, interval: 3600.5, pathPrefix: '/d', storage: local }))).toEqual([
      'interval: 3600.5 is not a whole number of seconds (give whole seconds, such as 3601, or a duration string such as "90s")',
    ]);
  });
});

describe("SnapshotAutoConfig accepts what Vault accepts (the engine-only rules are the engine's)", () => {
  it.each([
    ['a path prefix without the trailing "/"', { pathPrefix: 'snaps', storage: azure }],
    ['"/" inside filePrefix', { pathPrefix: 'p/', filePrefix: 'team/vault', storage: azure }],
    [
      "a blob environment outside the engine's list",
      { pathPrefix: 'p/', storage: SnapshotStorage.cloudThree({ containerName: 'c', accountName: 'a', accountKey: AZ_KEY, blobEnvironment: 'azure-env' }) },
    ],
    ['an interval over one year', { pathPrefix: 'p/', interval: '9000h', storage: azure }],
    [
      'managed identity without a key',
      { pathPrefix: 'p/', storage: SnapshotStorage.cloudThree({ containerName: 'c', accountName: 'a', authMode: CloudThreeAuthMode.MANAGED, clientId: 'id-1' }) },
    ],
    ['environment credentials', { pathPrefix: 'p/', storage: SnapshotStorage.cloudThree({ containerName: 'c', authMode: CloudThreeAuthMode.ENVIRONMENT }) }],
  ])('%s', (_what, over) => {
    const { stack, server } = newStack();
    expect(() => new SnapshotAutoConfig(stack, 'ok', { server, interval: '1h', ...over } as unknown as SnapshotAutoConfigProps)).not.toThrow();
  });
});

test('a placeholder key is refused at synth without quoting the secret; any printable ASCII key shape passes (S3-compatible stores differ)', () => {
  const storage = SnapshotStorage.cloudOne({ bucket: 'b', region: 'r', accessKeyId: 'AKIA…', secretAccessKey: 'wJalr…' });
  const bad = newStack();
  const problems = problemsOf(() => new SnapshotAutoConfig(bad.stack, 'snap', { server: bad.server, interval: '1h', pathPrefix: 'p', storage }));
  expect(problems.join('\n')).toMatch(/accessKeyId.*HTTP header/);
  expect(problems.join('\n')).not.toContain('wJalr');
  const fine = SnapshotStorage.cloudOne({ bucket: 'b', region: 'r', accessKeyId: 'minio_admin-01 ~!', secretAccessKey: AZ_KEY });
  const ok = newStack();
  expect(problemsOf(() => new SnapshotAutoConfig(ok.stack, 'snap', { server: ok.server, interval: '1h', pathPrefix: 'p', storage: fine }))).toEqual([]);
});
