// YoungGarbage (young-garbage.ts): fresh off-heap chunks dropped one after another, as a snapshot
// reader hands them out, stay bounded by its interval instead of piling up until V8's 64 MiB
// external-memory limit; and asking for the gc function leaves no `gc` global in contexts made
// afterwards.

import { runInNewContext } from 'node:vm';
import { YoungGarbage } from '../../../../src/engine/storage/young-garbage';

const MIB = 1024 * 1024;

/** Most ArrayBuffer memory above the start while 96 chunks of 1 MiB are made and dropped one by one. */
function churn(young: YoungGarbage | undefined): number {
  const start = process.memoryUsage().arrayBuffers;
  let most = 0;
  for (let i = 0; i < 96; i++) {
    const chunk = Buffer.allocUnsafeSlow(MIB);
    chunk.fill(i);
    young?.note(chunk.length);
    most = Math.max(most, process.memoryUsage().arrayBuffers - start);
  }
  return most;
}

test('dropped chunks are collected every interval, not at 64 MiB', () => {
  const most = churn(new YoungGarbage(8 * MIB));
  expect(most).toBeLessThan(24 * MIB);
});

test('no gc global is left behind in new contexts', () => {
  new YoungGarbage(1).note(1);
  expect(runInNewContext('typeof gc')).toBe('undefined');
});
