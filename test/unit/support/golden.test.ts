// The golden-file helper cannot pass on a missing file unless asked to write it.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectGolden } from '../../support/golden';

let dir: string;
const saved = process.env.UPDATE_GOLDEN;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'keyward-golden-'))));
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  if (saved === undefined) delete process.env.UPDATE_GOLDEN;
  else process.env.UPDATE_GOLDEN = saved;
});

test('a missing golden file fails and says how to write it', () => {
  delete process.env.UPDATE_GOLDEN;
  expect(() => expectGolden(join(dir, 'x.txt'), 'out')).toThrow(/golden file .*x\.txt is missing: run the test with UPDATE_GOLDEN=1/);
});

test('UPDATE_GOLDEN=1 writes it; afterwards a different output fails', () => {
  process.env.UPDATE_GOLDEN = '1';
  expectGolden(join(dir, 'sub', 'x.txt'), 'out');
  expect(readFileSync(join(dir, 'sub', 'x.txt'), 'utf8')).toBe('out');
  delete process.env.UPDATE_GOLDEN;
  expect(() => expectGolden(join(dir, 'sub', 'x.txt'), 'other')).toThrow();
  expect(expectGolden(join(dir, 'sub', 'x.txt'), 'out')).toBe('out');
});
