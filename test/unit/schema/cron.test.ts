// Five-field cron parsing and next/previous matching minutes (UTC), as rotation schedules use them.

import { CronError, nextCronTime, parseCron, previousCronTime } from '../../../src/schema/cron';

const at = (s: string) => Date.parse(s);

describe('cron', () => {
  it('finds the next matching minute', () => {
    expect(new Date(nextCronTime(parseCron('0 3 * * *'), at('2026-01-01T03:00:00Z'))!).toISOString()).toBe('2026-01-02T03:00:00.000Z');
    expect(new Date(nextCronTime(parseCron('*/15 * * * *'), at('2026-01-01T03:01:00Z'))!).toISOString()).toBe('2026-01-01T03:15:00.000Z');
    expect(new Date(nextCronTime(parseCron('30 12 * * mon'), at('2026-01-01T00:00:00Z'))!).toISOString()).toBe('2026-01-05T12:30:00.000Z');
    expect(new Date(nextCronTime(parseCron('@monthly'), at('2026-01-15T00:00:00Z'))!).toISOString()).toBe('2026-02-01T00:00:00.000Z');
    expect(new Date(nextCronTime(parseCron('0 0 1,15 * 1-5'), at('2026-01-01T00:00:00Z'))!).toISOString()).toBe('2026-01-02T00:00:00.000Z');
  });
  it('finds the latest match within a lookback', () => {
    const s = parseCron('0 3 * * *');
    expect(previousCronTime(s, at('2026-01-01T04:30:00Z'), 7200_000)).toBe(at('2026-01-01T03:00:00Z'));
    expect(previousCronTime(s, at('2026-01-01T06:30:00Z'), 3600_000)).toBeUndefined();
  });
  it('names the wrong field', () => {
    expect(() => parseCron('0 24 * * *')).toThrow(CronError);
    expect(() => parseCron('0 24 * * *')).toThrow(/hour value "24" is out of range 0-23/);
    expect(() => parseCron('0 0 * *')).toThrow(/expected exactly 5 fields, found 4/);
    expect(() => parseCron('*/0 * * * *')).toThrow(/minute step "0"/);
  });
});
