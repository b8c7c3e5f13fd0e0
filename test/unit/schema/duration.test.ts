import { formatGoDuration, parseDurationSeconds } from '../../../src/schema/duration';

describe('parseDurationSeconds', () => {
  it.each([
    [0, 0],
    [900, 900],
    ['900', 900],
    ['15m', 900],
    ['1h30m', 5400],
    ['1.5h', 5400],
    ['90s', 90],
    ['7d', 604800],
    ['', 0],
    [null, 0],
    ['1500ms', 1],
    ['2h0m0s', 7200],
    [' 60 ', 60],
    [12.9, 12],
  ])('%p → %p seconds', (input, expected) => expect(parseDurationSeconds(input)).toBe(expected));

  it.each([
    ['-1', /negative/],
    [-5, /negative/],
    ['-1h', /negative/],
    ['abc', /invalid duration/],
    ['10x', /invalid duration/],
    ['1h-2m', /invalid duration/],
    [true, /invalid duration/],
    [[1], /array/],
  ])('%p is refused', (input, msg) => expect(() => parseDurationSeconds(input)).toThrow(msg));
});

describe('formatGoDuration', () => {
  it.each([
    [0, '0s'],
    [59, '59s'],
    [900, '15m0s'],
    [3899.8, '1h4m59.8s'],
    [3600, '1h0m0s'],
  ])('%p → %p', (s, text) => expect(formatGoDuration(s)).toBe(text));
});
