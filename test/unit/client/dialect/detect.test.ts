// Dialect detection from sys/health bodies.

import { DialectDetectionError, editionName, serverInfoFromHealth } from '../../../../src/client/dialect';

const at = 'https://vault.example:8200';

test.each([
  ['1.19.0+keyward', 'keyward', false],
  ['1.19.2+ent', 'vault', true],
  ['1.19.2+ent.hsm', 'vault', true],
  ['1.19.2+ent.fips1402', 'vault', true],
  ['1.5.0+prem', 'vault', true],
  ['1.19.2', 'vault', false],
])('version %s -> %s (enterprise %s)', (version, dialect, enterprise) => {
  expect(serverInfoFromHealth({ version, enterprise }, at)).toEqual({ dialect, version, enterprise });
});

test('OpenBao: a 2.x version and no enterprise field at all (Vault >= 1.16 always sends it)', () => {
  expect(serverInfoFromHealth({ version: '2.2.0', cluster_name: 'openbao-cluster-1' }, at)).toEqual({ dialect: 'vault', version: '2.2.0', enterprise: false, openbao: true });
  expect(serverInfoFromHealth({ version: '1.19.2', enterprise: false }, at).openbao).toBeUndefined();
  expect(serverInfoFromHealth({ version: '1.14.0' }, at).openbao).toBeUndefined();
  expect(editionName(serverInfoFromHealth({ version: '2.2.0' }, at))).toBe('OpenBao 2.2.0');
});

test("a keyward snapshot agent says so beside the managed server's health", () => {
  expect(serverInfoFromHealth({ version: '2.2.0', keyward_snapshot_agent: true }, at)).toEqual({
    dialect: 'vault',
    version: '2.2.0',
    enterprise: false,
    openbao: true,
    snapshotAgent: true,
  });
  expect(serverInfoFromHealth({ version: '1.19.0+keyward', enterprise: false, keyward_snapshot_agent: true }, at).snapshotAgent).toBe(true);
  expect(editionName(serverInfoFromHealth({ version: '1.19.0+keyward', enterprise: false }, at))).toBe('keyward engine 1.19.0+keyward in oss edition');
});

test('the enterprise flag of sys/health (Vault >= 1.16) counts', () => {
  expect(serverInfoFromHealth({ version: '1.19.2', enterprise: true }, at).enterprise).toBe(true);
});

test('no version: a clear error naming the ways to set the dialect', () => {
  expect(() => serverInfoFromHealth({}, at)).toThrow(DialectDetectionError);
  expect(() => serverInfoFromHealth(undefined, at)).toThrow(/--dialect keyward\|vault, dialect in the keyward provider block, KEYWARD_DIALECT, or the manifest's server\.dialect/);
});

test('edition names', () => {
  expect(editionName({ dialect: 'vault', version: '1.19.2', enterprise: false })).toMatch(/community edition/);
  expect(editionName({ dialect: 'vault', version: '1.19.2+ent', enterprise: true })).toBe('Vault Enterprise 1.19.2+ent');
});
