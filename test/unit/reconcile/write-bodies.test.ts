// Request bodies: only changed fields on updates, endpoint keys cleared with "", metadata back to
// "default", secrets only from the environment and only when their fingerprint matches.

import { configBody, configResetBody, snapshotBody } from '../../../src/reconcile/write-bodies';
import type { DesiredObject } from '../../../src/reconcile/model';
import { fingerprintSecret } from '../../../src/schema/manifest';
import { IAM_METADATA_DEFAULT } from '../../../src/schema/cloud-config';

const salt = 'salt-0123456789abcdef';
const cfg: DesiredObject = {
  id: 'auth/c/config',
  address: { kind: 'auth-config', mount: 'c' },
  fields: {},
  secrets: { credentials: { env: 'CREDS', fingerprint: fingerprintSecret(salt, 'the-secret') } },
};

test('config: endpoints merged with removed keys cleared; default metadata as "default"', () => {
  const body = configBody(
    cfg,
    [
      { field: 'custom_endpoint', before: { api: 'a', iam: 'i' }, after: { iam: 'i2' } },
      { field: 'iam_metadata', before: ['role'], after: [...IAM_METADATA_DEFAULT].sort() },
      { field: 'vm_metadata', before: ['zone'], after: [] },
      { field: 'iam_alias', before: 'role_id', after: 'unique_id' },
    ],
    { salt, env: {} },
  );
  expect(body).toEqual({ custom_endpoint: { api: '', iam: 'i2' }, iam_metadata: 'default', vm_metadata: [], iam_alias: 'unique_id' });
});

test('config: secrets come from the environment, checked against the fingerprint', () => {
  const change = [{ field: 'credentials', sensitive: true, before: '(sensitive)', after: '(sensitive)' }];
  expect(configBody(cfg, change, { salt, env: { CREDS: 'the-secret' } })).toEqual({ credentials: 'the-secret' });
  expect(() => configBody(cfg, change, { salt, env: { CREDS: 'other' } })).toThrow(/does not match the fingerprint/);
  expect(() => configBody(cfg, change, { salt, env: {} })).toThrow(/needs environment variable CREDS, which is not set/);
  expect(configBody(cfg, [{ field: 'credentials', sensitive: true, before: '(sensitive)', after: null }], { salt, env: {} })).toEqual({ credentials: '' });
});

test('config reset: every compared field back to its default, credentials cleared', () => {
  expect(
    configResetBody([
      { field: 'iam_alias', before: 'unique_id' },
      { field: 'custom_endpoint', before: { api: 'x' } },
    ]),
  ).toEqual({ iam_alias: 'role_id', custom_endpoint: { api: '' }, credentials: '' });
});

test('snapshot: the complete declared object on every write, every secret included (Vault may replace on update)', () => {
  const snap: DesiredObject = {
    id: 'snapshot/s',
    address: { kind: 'snapshot-config', name: 's' },
    fields: { storage_type: 'cloudone-store', interval: 60 },
    secrets: {
      cloudone_secret_access_key: { env: 'K', fingerprint: fingerprintSecret(salt, 'k') },
      cloudone_session_token: { env: 'T', fingerprint: fingerprintSecret(salt, 't') },
    },
  };
  const env = { K: 'k', T: 't' };
  const all = { storage_type: 'cloudone-store', interval: 60, cloudone_secret_access_key: 'k', cloudone_session_token: 't' };
  expect(snapshotBody(snap, [{ field: 'interval', before: 30, after: 60 }], { salt, env })).toEqual(all);
  expect(snapshotBody(snap, [{ field: 'cloudone_session_token', sensitive: true, before: '(sensitive)', after: '(sensitive)' }], { salt, env })).toEqual(all);
  // A secret the declaration dropped is cleared.
  const noToken = { ...snap, secrets: { cloudone_secret_access_key: snap.secrets.cloudone_secret_access_key } };
  expect(snapshotBody(noToken, [{ field: 'cloudone_session_token', sensitive: true, before: '(sensitive)', after: null }], { salt, env })).toEqual({
    ...all,
    cloudone_session_token: '',
  });
  // A field at its default that did not change stays out; one changed back to its default goes.
  const withDefaults = { ...snap, fields: { ...snap.fields, retain: 1, cloudone_endpoint: '' } };
  expect(snapshotBody(withDefaults, [{ field: 'retain', before: 3, after: 1 }], { salt, env })).toEqual({ ...all, retain: 1 });
  expect(snapshotBody(snap, 'all', { salt, env })).toEqual({ storage_type: 'cloudone-store', interval: 60, cloudone_secret_access_key: 'k', cloudone_session_token: 't' });
});
