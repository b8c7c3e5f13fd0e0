// Standard five-field cron expressions (minute hour day-of-month month day-of-week, as Vault's
// rotation manager takes them, plus the @hourly/@daily/@weekly/@monthly/@yearly descriptors):
// parsing with field-naming errors and the next matching minute in UTC, for rotation schedules.

export class CronError extends Error {}

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  names?: string[];
}

const FIELDS: FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] },
  { name: 'day of week', min: 0, max: 7, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
];

const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

export interface CronSchedule {
  minutes: Set<number>;
  hours: Set<number>;
  days: Set<number>;
  months: Set<number>;
  weekdays: Set<number>;
  /** Whether day-of-month / day-of-week were restricted (cron ORs them when both are). */
  dayRestricted: boolean;
  weekdayRestricted: boolean;
}

function value(spec: FieldSpec, text: string): number {
  const named = spec.names?.indexOf(text.toLowerCase()) ?? -1;
  const n = named >= 0 ? named + spec.min : /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(n) || n < spec.min || n > spec.max) {
    throw new CronError(`${spec.name} value ${JSON.stringify(text)} is out of range ${spec.min}-${spec.max}`);
  }
  return n;
}

function parseField(spec: FieldSpec, text: string): Set<number> {
  const out = new Set<number>();
  for (const part of text.split(',')) {
    const [range, stepText, extra] = part.split('/');
    if (extra !== undefined || range === '') throw new CronError(`${spec.name} field ${JSON.stringify(text)} is malformed`);
    const step = stepText === undefined ? 1 : /^\d+$/.test(stepText) && Number(stepText) > 0 ? Number(stepText) : NaN;
    if (Number.isNaN(step)) throw new CronError(`${spec.name} step ${JSON.stringify(stepText)} must be a positive integer`);
    let lo: number;
    let hi: number;
    if (range === '*' || range === '?') {
      lo = spec.min;
      hi = spec.max;
    } else if (range.includes('-')) {
      const [a, b] = range.split('-');
      lo = value(spec, a);
      hi = value(spec, b);
      if (lo > hi) throw new CronError(`${spec.name} range ${JSON.stringify(range)} is backwards`);
    } else {
      lo = value(spec, range);
      hi = stepText === undefined ? lo : spec.max;
    }
    for (let v = lo; v <= hi; v += step) out.add(spec.name === 'day of week' && v === 7 ? 0 : v);
  }
  return out;
}

/** Parses a five-field expression or a descriptor; throws CronError saying which field is wrong. */
export function parseCron(expr: string): CronSchedule {
  const text = DESCRIPTORS[expr.trim().toLowerCase()] ?? expr.trim();
  const parts = text.split(/\s+/).filter((p) => p !== '');
  if (parts.length !== 5) throw new CronError(`expected exactly 5 fields, found ${parts.length}: ${JSON.stringify(expr)}`);
  const [minutes, hours, days, months, weekdays] = parts.map((p, i) => parseField(FIELDS[i], p));
  return {
    minutes,
    hours,
    days,
    months,
    weekdays,
    dayRestricted: parts[2] !== '*' && parts[2] !== '?',
    weekdayRestricted: parts[4] !== '*' && parts[4] !== '?',
  };
}

function dayMatches(s: CronSchedule, d: Date): boolean {
  const dom = s.days.has(d.getUTCDate());
  const dow = s.weekdays.has(d.getUTCDay());
  if (s.dayRestricted && s.weekdayRestricted) return dom || dow;
  return dom && dow;
}

/** The first matching minute strictly after `afterMs` (UTC), or undefined if none within 5 years. */
export function nextCronTime(s: CronSchedule, afterMs: number): number | undefined {
  const d = new Date(Math.floor(afterMs / 60_000) * 60_000 + 60_000);
  const limit = afterMs + 5 * 366 * 86_400_000;
  while (d.getTime() <= limit) {
    if (!s.months.has(d.getUTCMonth() + 1)) {
      d.setUTCMonth(d.getUTCMonth() + 1, 1);
      d.setUTCHours(0, 0, 0, 0);
      continue;
    }
    if (!dayMatches(s, d)) {
      d.setUTCDate(d.getUTCDate() + 1);
      d.setUTCHours(0, 0, 0, 0);
      continue;
    }
    if (!s.hours.has(d.getUTCHours())) {
      d.setUTCHours(d.getUTCHours() + 1, 0, 0, 0);
      continue;
    }
    if (!s.minutes.has(d.getUTCMinutes())) {
      d.setUTCMinutes(d.getUTCMinutes() + 1, 0, 0);
      continue;
    }
    return d.getTime();
  }
  return undefined;
}

/** The latest matching minute at or before `atMs` within the last `lookbackMs`, if any. */
export function previousCronTime(s: CronSchedule, atMs: number, lookbackMs: number): number | undefined {
  // Walk forward from the lookback start: windows are short (hours), so this stays cheap.
  let last: number | undefined;
  let t = nextCronTime(s, atMs - lookbackMs - 1);
  while (t !== undefined && t <= atMs) {
    last = t;
    t = nextCronTime(s, t);
  }
  return last;
}
