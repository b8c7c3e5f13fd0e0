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
  ['2.2.0', 'vault', false], // OpenBao
])('version %s -> %s (enterprise %s)', (version, dialect, enterprise) => {
  expect(serverInfoFromHealth({ version }, at)).toEqual({ dialect, version, enterprise });
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
