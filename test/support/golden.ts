// Golden files: the expected output is the file's content. A missing golden file fails the test
// (so deleting one, or forgetting to commit one, cannot pass, in CI least of all); UPDATE_GOLDEN=1
// writes or rewrites them, to be reviewed in the diff and committed.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export const updatingGolden = (): boolean => process.env.UPDATE_GOLDEN === '1';

/** Expects `actual` to equal the file at `path`; returns `actual` for further checks. */
export function expectGolden(path: string, actual: string): string {
  if (updatingGolden()) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
  } else if (!existsSync(path)) {
    throw new Error(`golden file ${path} is missing: run the test with UPDATE_GOLDEN=1 to write it, review it and commit it`);
  }
  expect(actual).toBe(readFileSync(path, 'utf8'));
  return actual;
}
