// Every KeywardServer validation rule has a failing case.

import { Testing, TerraformStack } from 'cdktf';
import { KeywardServer, type KeywardServerProps } from '../../../constructs';
import { keywardServerRules } from '../../../constructs/keyward-server-rules';
import { problemsOf } from './fixtures';
import { buildManifest } from '../../../constructs/stack-synthesis';

const failing: Record<string, { props: KeywardServerProps; second?: boolean; message: RegExp }> = {
  'one-per-stack': { props: {}, second: true, message: /a stack holds one KeywardServer.*test\/first is already defined/ },
  'address-url': { props: { address: 'vault:8200' }, message: /address "vault:8200" must use http or https|is not a URL/ },
  'snapshot-address-url': { props: { snapshotAddress: 'ftp://agent:8300' }, message: /snapshotAddress "ftp:\/\/agent:8300" must use http or https/ },
  'cloud-plugin-name': { props: { cloudPlugin: 'gcp plugin' }, message: /cloudPlugin "gcp plugin" must be a plugin name/ },
  'namespace-format': { props: { namespace: 'team a' }, message: /namespace "team a" must be a path/ },
  'dialect-value': { props: { dialect: 'gcp' as 'vault' }, message: /dialect "gcp" must be "keyward" or "vault"/ },
  'salt-length': { props: { fingerprintSalt: 'short' }, message: /fingerprintSalt must be at least 16 characters/ },
  'unknown-props': { props: { adress: 'http://x' } as KeywardServerProps, message: /unknown prop adress \(did you mean address\?\)/ },
};

describe('KeywardServer validation rules', () => {
  it('has a failing case for every rule in the table', () => {
    expect(Object.keys(failing).sort()).toEqual(keywardServerRules.map((r) => r.id).sort());
  });

  it.each(Object.entries(failing))('%s fails', (_id, c) => {
    const stack = new TerraformStack(Testing.app(), 'test');
    if (c.second) new KeywardServer(stack, 'first');
    expect(problemsOf(() => new KeywardServer(stack, 'server', c.props)).join('\n')).toMatch(c.message);
  });

  it('accepts an address, a namespace and a salt', () => {
    const stack = new TerraformStack(Testing.app(), 'test');
    expect(problemsOf(() => new KeywardServer(stack, 's', { address: 'https://vault.example:8200', namespace: 'team-a/dev', fingerprintSalt: '0123456789abcdef' }))).toEqual([]);
  });
});

it("snapshotAddress and cloudPlugin land in the manifest's server block", () => {
  const stack = new TerraformStack(Testing.app(), 'test');
  expect(buildManifest(new KeywardServer(stack, 's', { address: 'http://vault:8200', snapshotAddress: 'http://agent:8300', cloudPlugin: 'vault-plugin-auth-gcp' })).server).toEqual({
    address: 'http://vault:8200',
    snapshotAddress: 'http://agent:8300',
    cloudPlugin: 'vault-plugin-auth-gcp',
  });
});

it("the dialect prop lands in the manifest's server block (absent: detected at deploy time)", () => {
  const stack = new TerraformStack(Testing.app(), 'test');
  expect(buildManifest(new KeywardServer(stack, 's', { dialect: 'vault' })).server).toEqual({ dialect: 'vault' });
  const other = new TerraformStack(Testing.app(), 'other');
  expect(buildManifest(new KeywardServer(other, 's')).server).toEqual({});
});
