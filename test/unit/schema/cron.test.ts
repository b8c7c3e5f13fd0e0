// Rotation schedules parse exactly as Vault parses them: robfig/cron v3 with Minute | Hour | Dom |
// Month | Dow and no descriptors, every time in UTC (Vault's sdk/rotation/schedule.go). The cases
// are robfig/cron v3.0.1's own (parser_test.go, spec_test.go) that apply to that parser, with the
// seconds field dropped and times in UTC, and Vault's (sdk/rotation/schedule_test.go).

import { CronError, nextCronTime, parseCron, previousCronTime } from '../../../src/schema/cron';

const at = (s: string) => Date.parse(s);
const next = (spec: string, after: string): string | undefined => {
  const t = nextCronTime(parseCron(spec), at(after));
  return t === undefined ? undefined : new Date(t).toISOString();
};

describe("robfig/cron's parser cases (parser_test.go)", () => {
  it.each([
    // TestRange, on fields whose bounds hold the case
    ['5 * * * *', 'minutes', [5]],
    ['0 * * * *', 'minutes', [0]],
    ['* * * * 5-5', 'weekdays', [5]],
    ['* * * * 5-6', 'weekdays', [5, 6]],
    ['* * * * 5-6/2', 'weekdays', [5]],
    ['* * * * 4-6/2', 'weekdays', [4, 6]],
    ['* * * * 4-6/1', 'weekdays', [4, 5, 6]],
    ['* * * 1-3/2 *', 'months', [1, 3]],
    // TestField
    ['* * * * 1,5-6/1,3', 'weekdays', [1, 5, 6, 3]],
    ['* * 1,5-7/2,3 * *', 'days', [1, 5, 7, 3]],
    // TestAll: the bounds of each field (day of week is 0-6)
    ['* * * * *', 'weekdays', [0, 1, 2, 3, 4, 5, 6]],
    ['* * * * *', 'months', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]],
    ['* * * * *', 'days', Array.from({ length: 31 }, (_, i) => i + 1)],
    ['* * * * *', 'hours', Array.from({ length: 24 }, (_, i) => i)],
    ['* * * * *', 'minutes', Array.from({ length: 60 }, (_, i) => i)],
    // TestParseSchedule, standard parser
    ['CRON_TZ=UTC  5 * * * *', 'minutes', [5]],
    // Names, any case
    ['* * * JUL-aug Mon', 'months', [7, 8]],
    // Empty list items are skipped (strings.FieldsFunc)
    ['1,,2 * * * *', 'minutes', [1, 2]],
    [',5 * * * *', 'minutes', [5]],
    // Go's Atoi takes a sign
    ['+5 * * * */+2', 'minutes', [5]],
  ] as const)('%s: %s', (spec, field, values) => {
    expect([...parseCron(spec)[field]].sort((a, b) => a - b)).toEqual([...values].sort((a, b) => a - b));
  });

  it.each([
    ['5--5 * * * *', /too many hyphens/],
    ['* * * jan-x *', /month value "x" is not a number or a name/],
    ['2-x * * * *', /minute value "x" is not a number/],
    ['*/-12 * * * *', /minute value "-12" is negative/],
    ['*//2 * * * *', /too many slashes/],
    ['* * 0 * *', /day of month value "0" is out of range 1-31/],
    ['* * * * 7', /day of week value "7" is out of range 0-6/],
    ['* * * * 5-3', /day of week range "5-3" is backwards/],
    ['*/0 * * * *', /minute step in "\*\/0" must be a positive number/],
    // TestParseScheduleErrors / TestStandardSpecSchedule / TestErrors
    ['5 j * * *', /hour value "j" is not a number/],
    ['* * * *', /expected exactly 5 fields, found 4/],
    ['', /empty schedule/],
    ['xyz', /expected exactly 5 fields, found 1/],
    ['60 0 * * *', /minute value "60" is out of range 0-59/],
    ['0 60 * * *', /hour value "60" is out of range 0-23/],
    ['0 0 * * XYZ', /day of week value "XYZ" is not a number or a name/],
    // TestSlash0NoHang
    ['TZ=America/New_York 15/0 * * * *', /minute step in "15\/0" must be a positive number/],
    // Vault's parser has no Descriptor option (TestNoDescriptorParser and Vault's parseOptions)
    ['@every 1m', /descriptors such as "@every 1m" are not accepted/],
    ['@daily', /descriptors such as "@daily" are not accepted/],
    ['@hourly', /not accepted/],
    ['TZ=UTC @midnight', /not accepted/],
    // A zone Go cannot load
    ['TZ=Nowhere/City 0 0 * * *', /unknown time zone "Nowhere\/City"/],
  ])('%s is refused', (spec, message) => {
    expect(() => parseCron(spec)).toThrow(CronError);
    expect(() => parseCron(spec)).toThrow(message);
  });

  it('a leading "*" is the whole range whatever follows a hyphen, as in robfig', () => {
    expect([...parseCron('*-5 * * * *').minutes]).toHaveLength(60);
  });
});

describe("Vault's own cases (sdk/rotation/schedule_test.go): five fields, the zone forced to UTC", () => {
  it('"* * * * *" parses', () => expect(() => parseCron('* * * * *')).not.toThrow());
  it('seconds are invalid', () => expect(() => parseCron('* * * * * *')).toThrow(/expected exactly 5 fields, found 6/));
  it('a custom time zone is accepted and ignored: times stay UTC', () => {
    expect(next('CRON_TZ=Asia/Tokyo 0 3 * * *', '2026-01-01T00:00:00Z')).toBe('2026-01-01T03:00:00.000Z');
    expect(next('TZ=America/New_York 30 2 11 Mar ?', '2012-03-11T05:00:00Z')).toBe('2013-03-11T02:30:00.000Z');
  });
});

describe("robfig/cron's activation cases (spec_test.go TestActivation), in UTC", () => {
  it.each([
    ['2012-07-09T15:00Z', '0/15 * * * *', true],
    ['2012-07-09T15:45Z', '0/15 * * * *', true],
    ['2012-07-09T15:40Z', '0/15 * * * *', false],
    ['2012-07-09T15:05Z', '5/15 * * * *', true],
    ['2012-07-09T15:20Z', '5/15 * * * *', true],
    ['2012-07-09T15:50Z', '5/15 * * * *', true],
    ['2012-07-15T15:00Z', '0/15 * * Jul *', true],
    ['2012-07-15T15:00Z', '0/15 * * Jun *', false],
    ['2012-07-15T08:30Z', '30 08 ? Jul Sun', true],
    ['2012-07-15T08:30Z', '30 08 15 Jul ?', true],
    ['2012-07-16T08:30Z', '30 08 ? Jul Sun', false],
    ['2012-07-16T08:30Z', '30 08 15 Jul ?', false],
    // Both day fields restricted: either matches.
    ['2012-07-15T00:00Z', '* * 1,15 * Sun', true],
    ['2012-06-15T00:00Z', '* * 1,15 * Sun', true],
    ['2012-08-01T00:00Z', '* * 1,15 * Sun', true],
    ['2012-07-15T00:00Z', '* * */10 * Sun', true],
    // One of them a star: both must match.
    ['2012-07-15T00:00Z', '* * * * Mon', false],
    ['2012-07-09T00:00Z', '* * 1,15 * *', false],
    ['2012-07-15T00:00Z', '* * 1,15 * *', true],
    ['2012-07-15T00:00Z', '* * */2 * Sun', true],
    // "*/1" and a list holding "*" are stars too; "*/2" is not.
    ['2012-07-09T00:00Z', '0 0 */1 * Sun', false],
    ['2012-07-09T00:00Z', '0 0 *,3 * Sun', false],
    ['2012-07-09T00:00Z', '0 0 */2 * Mon', true],
  ])('%s, %s: %s', (time, spec, fires) => {
    expect(next(spec, new Date(at(time) - 1000).toISOString()) === new Date(at(time)).toISOString()).toBe(fires);
  });
});

describe("robfig/cron's next-time cases (spec_test.go TestNext), seconds field dropped, in UTC", () => {
  it.each([
    ['2012-07-09T14:45:00Z', '0/15 * * * *', '2012-07-09T15:00:00.000Z'],
    ['2012-07-09T14:59:00Z', '0/15 * * * *', '2012-07-09T15:00:00.000Z'],
    ['2012-07-09T14:59:59Z', '0/15 * * * *', '2012-07-09T15:00:00.000Z'],
    ['2012-07-09T15:45:00Z', '20-35/15 * * * *', '2012-07-09T16:20:00.000Z'],
    ['2012-07-09T23:46:00Z', '*/15 * * * *', '2012-07-10T00:00:00.000Z'],
    ['2012-07-09T23:45:00Z', '20-35/15 * * * *', '2012-07-10T00:20:00.000Z'],
    ['2012-07-09T23:35:51Z', '20-35/15 * * * *', '2012-07-10T00:20:00.000Z'],
    ['2012-07-09T23:35:51Z', '20-35/15 1/2 * * *', '2012-07-10T01:20:00.000Z'],
    ['2012-07-09T23:35:51Z', '20-35/15 10-12 * * *', '2012-07-10T10:20:00.000Z'],
    ['2012-07-09T23:35:51Z', '20-35/15 1/2 */2 * *', '2012-07-11T01:20:00.000Z'],
    ['2012-07-09T23:35:51Z', '20-35/15 * 9-20 * *', '2012-07-10T00:20:00.000Z'],
    ['2012-07-09T23:35:51Z', '20-35/15 * 9-20 Jul *', '2012-07-10T00:20:00.000Z'],
    ['2012-07-09T23:35:00Z', '0 0 9 Apr-Oct ?', '2012-08-09T00:00:00.000Z'],
    ['2012-07-09T23:35:00Z', '0 0 */5 Apr,Aug,Oct Mon', '2012-08-01T00:00:00.000Z'],
    ['2012-07-09T23:35:00Z', '0 0 */5 Oct Mon', '2012-10-01T00:00:00.000Z'],
    ['2012-07-09T23:35:00Z', '0 0 * Feb Mon', '2013-02-04T00:00:00.000Z'],
    ['2012-07-09T23:35:00Z', '0 0 * Feb Mon/2', '2013-02-01T00:00:00.000Z'],
    ['2012-12-31T23:59:45Z', '* * * * *', '2013-01-01T00:00:00.000Z'],
    ['2012-07-09T23:35:00Z', '0 0 29 Feb ?', '2016-02-29T00:00:00.000Z'],
    // TestNextWithTz, the times in UTC
    ['2016-01-03T07:39:03Z', '14 14 * * *', '2016-01-03T14:14:00.000Z'],
    ['2016-01-02T22:39:03Z', '14 14 * * ?', '2016-01-03T14:14:00.000Z'],
  ])('after %s, %s: %s', (after, spec, expected) => {
    expect(next(spec, after)).toBe(expected);
  });

  it.each(['0 0 30 Feb ?', '0 0 31 Apr ?', '0 0 , * *'])('unsatisfiable %s: no next time', (spec) => {
    expect(next(spec, '2012-07-09T23:35:00Z')).toBeUndefined();
  });
});

describe('lookback', () => {
  it('finds the latest match within a lookback', () => {
    const s = parseCron('0 3 * * *');
    expect(previousCronTime(s, at('2026-01-01T04:30:00Z'), 7200_000)).toBe(at('2026-01-01T03:00:00Z'));
    expect(previousCronTime(s, at('2026-01-01T06:30:00Z'), 3600_000)).toBeUndefined();
  });
});
