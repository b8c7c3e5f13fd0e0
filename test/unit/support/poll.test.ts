// The polling helper returns the first accepted value and fails with what it waited for.

import { until } from '../../support/poll';

test('returns the first value the check accepts', async () => {
  let n = 0;
  await expect(
    until(
      'n to reach 3',
      () => ++n,
      (v) => v >= 3,
      { intervalMs: 0 },
    ),
  ).resolves.toBe(3);
});

test('accepts a truthy value by default, from an async getter', async () => {
  let n = 0;
  await expect(until('a value', async () => (++n > 2 ? 'yes' : ''), undefined, { intervalMs: 1 })).resolves.toBe('yes');
});

test('fails after the timeout, naming what it waited for and the last value', async () => {
  await expect(
    until(
      'the door to open',
      () => ({ open: false }),
      (v) => v.open,
      { timeoutMs: 30, intervalMs: 5 },
    ),
  ).rejects.toThrow(/timed out after 30 ms waiting for the door to open \(last value: \{"open":false\}\)/);
});
