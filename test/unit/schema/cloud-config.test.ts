// Config wire rules: metadata lists, aliases, custom endpoints (forms and resolution), credentials
// validation, merge semantics and the read shape (no secret).

import { generateKeyPairSync } from 'node:crypto';
import {
  applyConfigWrite,
  canonicalConfig,
  configReadShape,
  parseMetadataList,
  parseServiceAccountKey,
  resolveEndpoint,
  validateAlias,
  validateEndpoint,
} from '../../../src/schema/cloud-config';
import { ApiError } from '../../../src/schema/errors';

const pem = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const keyJson = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ type: 'service_account', private_key_id: 'k1', private_key: pem, client_email: 'a@p.iam.gserviceaccount.com', client_id: '9', project_id: 'p', ...extra });

function errorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (ApiError.isApiError(e)) return e;
    throw e;
  }
  throw new Error('expected an ApiError');
}

describe('metadata lists', () => {
  it('maps default to the marker, [] to none, subsets to sorted unique lower-case keys', () => {
    expect(parseMetadataList(['default'], 'iam')).toBeNull();
    expect(parseMetadataList([], 'vm')).toEqual([]);
    expect(parseMetadataList([''], 'vm')).toEqual([]);
    expect(parseMetadataList([' Role', 'project_id', 'role'], 'iam')).toEqual(['project_id', 'role']);
  });
  it('names the unavailable fields and the allowed ones', () => {
    const e = errorOf(() => parseMetadataList(['zone', 'x'], 'iam'));
    expect(e.status).toBe(400);
    expect(e.errors[0]).toBe(
      'failed to parse iam metadata: "zone, x" contains an unavailable field, please select from "project_id, role, service_account_id, service_account_email"',
    );
    expect(errorOf(() => parseMetadataList(['default', 'zone'], 'vm')).errors[0]).toBe(
      `failed to parse vm metadata: ["default" "zone"] contains default - default can't be used in combination with other fields`,
    );
  });
});

describe('aliases and endpoints', () => {
  it('accepts the enum values and "", refuses others listing them', () => {
    expect(validateAlias('unique_id', 'iam')).toBe('unique_id');
    expect(validateAlias('', 'vm')).toBe('');
    expect(errorOf(() => validateAlias('instance_id', 'iam')).errors[0]).toMatch(/must be one of: role_id, unique_id/);
  });
  it('validates custom endpoint keys and URL forms', () => {
    expect(validateEndpoint('api', 'host:8080')).toBe('host:8080');
    expect(validateEndpoint('iam', 'http://127.0.0.1:1/base')).toBe('http://127.0.0.1:1/base');
    expect(errorOf(() => validateEndpoint('storage', 'x')).errors[0]).toMatch(/Available types are: 'api', 'iam', 'crm', 'compute'/);
    expect(errorOf(() => validateEndpoint('crm', 'http://h/?q=1')).errors[0]).toMatch(/query/);
    expect(errorOf(() => validateEndpoint('crm', 'http://')).errors[0]).toMatch(/expected scheme/);
  });
  it('resolves overrides: default path when none, scheme https when absent', () => {
    expect(resolveEndpoint('compute', undefined)).toBe('https://compute.googleapis.com/compute/v1');
    expect(resolveEndpoint('compute', 'http://127.0.0.1:9')).toBe('http://127.0.0.1:9/compute/v1');
    expect(resolveEndpoint('compute', 'private.example:443/custom/')).toBe('https://private.example/custom');
    expect(resolveEndpoint('iam', 'http://127.0.0.1:9')).toBe('http://127.0.0.1:9');
    expect(resolveEndpoint('iam', undefined)).toBe('https://iam.googleapis.com');
    expect(resolveEndpoint('api', 'http://127.0.0.1:9/')).toBe('http://127.0.0.1:9');
  });
});

describe('credentials', () => {
  it('keeps the derived fields and the token_uri', () => {
    const k = parseServiceAccountKey(keyJson({ token_uri: 'http://127.0.0.1:1/token' }));
    expect(k).toMatchObject({ client_email: 'a@p.iam.gserviceaccount.com', private_key_id: 'k1', project_id: 'p', token_uri: 'http://127.0.0.1:1/token' });
  });
  it('refuses non-keys without echoing key material', () => {
    expect(errorOf(() => parseServiceAccountKey('{')).errors[0]).toMatch(/^failed to read credentials: invalid JSON/);
    expect(errorOf(() => parseServiceAccountKey('[]')).errors[0]).toMatch(/JSON object/);
    expect(errorOf(() => parseServiceAccountKey(keyJson({ type: 'authorized_user' }))).errors[0]).toMatch(/"type" must be "service_account"/);
    expect(errorOf(() => parseServiceAccountKey(keyJson({ private_key_id: '' }))).errors[0]).toMatch(/missing private key/);
    const bad = errorOf(() => parseServiceAccountKey(keyJson({ private_key: 'not a pem secret-ish' })));
    expect(bad.errors[0]).toMatch(/not a PEM-encoded private key/);
    expect(bad.errors[0]).not.toContain('secret-ish');
  });
});

describe('merge and read', () => {
  it('changes only present fields and never returns the private key', () => {
    let c = applyConfigWrite({}, { credentials: keyJson(), iam_alias: 'unique_id', custom_endpoint: { api: 'a.example', iam: 'i.example' } });
    c = applyConfigWrite(c, { custom_endpoint: { api: '' }, vm_metadata: ['zone'] });
    const read = configReadShape(c);
    expect(read).toEqual({
      client_email: 'a@p.iam.gserviceaccount.com',
      client_id: '9',
      private_key_id: 'k1',
      project_id: 'p',
      iam_metadata: ['project_id', 'role', 'service_account_id', 'service_account_email'],
      vm_metadata: ['zone'],
      iam_alias: 'unique_id',
      custom_endpoint: { iam: 'i.example' },
      identity_token_audience: '',
      identity_token_ttl: 0, // never sent: reads 0, as Vault
      rotation_schedule: '',
      rotation_window: 0,
      rotation_period: 0,
      disable_automated_rotation: false,
    });
    expect(JSON.stringify(read)).not.toContain('PRIVATE');
    expect(configReadShape(applyConfigWrite(c, { credentials: '' })).client_email).toBeUndefined();
  });
  it('canonicalConfig gives the read form of a desired config', () => {
    expect(canonicalConfig({ iam_metadata: ['default'], vm_metadata: [] })).toMatchObject({ iam_metadata: expect.any(Array), vm_metadata: [] });
  });
});
