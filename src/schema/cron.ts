// Rotation schedules as Vault parses them: robfig/cron v3 with the fields Minute | Hour | Dom |
// Month | Dow and no descriptors (Vault's sdk/rotation/schedule.go), so exactly what Vault accepts:
// five fields; a leading TZ= or CRON_TZ= zone is accepted and ignored (Vault forces UTC); @daily
// and the like are refused; day of week is 0-6 (7 is refused); empty list items are skipped; "*"
// or "?" (also "*/1", and a list holding one) leaves a day field unrestricted. The next matching
// minute is computed in UTC. test/unit/schema/cron.test.ts holds robfig's and Vault's own cases.

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
  { name: 'day of week', min: 0, max: 6, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
];

export interface CronSchedule {
  minutes: Set<number>;
  hours: Set<number>;
  days: Set<number>;
  months: Set<number>;
  weekdays: Set<number>;
  /** Whether day of month / day of week are restricted (no "*" or "?"): cron ORs them when both are. */
  dayRestricted: boolean;
  weekdayRestricted: boolean;
}

/** Go's strconv.Atoi, as robfig reads numbers: an optional sign, then digits. */
function integer(spec: FieldSpec, text: string): number {
  if (!/^[+-]?\d+$/.test(text) || !Number.isSafeInteger(Number(text)))
    throw new CronError(`${spec.name} value ${JSON.stringify(text)} is not a number${spec.names ? ' or a name' : ''}`);
  const n = Number(text);
  if (n < 0) throw new CronError(`${spec.name} value ${JSON.stringify(text)} is negative`);
  return n;
}

function valueOrName(spec: FieldSpec, text: string): number {
  const named = spec.names?.indexOf(text.toLowerCase()) ?? -1;
  return named >= 0 ? named + spec.min : integer(spec, text);
}

/** A comma list of ranges (number, name, "*" or "?", "a-b", each with an optional "/step"). */
function parseField(spec: FieldSpec, text: string): { values: Set<number>; star: boolean } {
  const values = new Set<number>();
  let star = false;
  for (const part of text.split(',').filter((p) => p !== '')) {
    const rangeAndStep = part.split('/');
    const lowAndHigh = rangeAndStep[0]!.split('-');
    let lo: number;
    let hi: number;
    let partStar = false;
    // As robfig: a leading "*" or "?" is the whole range, whatever follows a hyphen.
    if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
      lo = spec.min;
      hi = spec.max;
      partStar = true;
    } else {
      if (lowAndHigh.length > 2) throw new CronError(`${spec.name} range ${JSON.stringify(part)} has too many hyphens`);
      lo = valueOrName(spec, lowAndHigh[0]!);
      hi = lowAndHigh.length === 2 ? valueOrName(spec, lowAndHigh[1]!) : lo;
    }
    let step = 1;
    if (rangeAndStep.length > 2) throw new CronError(`${spec.name} range ${JSON.stringify(part)} has too many slashes`);
    if (rangeAndStep.length === 2) {
      step = integer(spec, rangeAndStep[1]!);
      // "N/step" means "N-max/step".
      if (lowAndHigh.length === 1) hi = spec.max;
      if (step > 1) partStar = false;
    }
    if (lo < spec.min || hi > spec.max)
      throw new CronError(`${spec.name} value ${JSON.stringify(lo < spec.min ? String(lo) : String(hi))} is out of range ${spec.min}-${spec.max}`);
    if (lo > hi) throw new CronError(`${spec.name} range ${JSON.stringify(part)} is backwards`);
    if (step === 0) throw new CronError(`${spec.name} step in ${JSON.stringify(part)} must be a positive number`);
    for (let v = lo; v <= hi; v += step) values.add(v);
    star ||= partStar;
  }
  return { values, star };
}

/** Whether `zone` names a time zone Go's time.LoadLocation would load ("" and "UTC" included). */
function knownZone(zone: string): boolean {
  if (zone === '' || zone === 'UTC' || zone === 'Local') return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Parses a schedule as Vault does; throws CronError saying which field and rule failed. */
export function parseCron(expr: string): CronSchedule {
  let spec = expr;
  if (spec === '') throw new CronError('empty schedule');
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    // Vault overrides the zone with UTC; a zone Go cannot load is still an error there.
    const space = spec.indexOf(' ');
    if (space === -1) throw new CronError(`time zone prefix ${JSON.stringify(spec)} must be followed by the five fields`);
    const zone = spec.slice(spec.indexOf('=') + 1, space);
    if (!knownZone(zone)) throw new CronError(`unknown time zone ${JSON.stringify(zone)}`);
    spec = spec.slice(space).trim();
  }
  if (spec.startsWith('@'))
    throw new CronError(`descriptors such as ${JSON.stringify(spec)} are not accepted: give five fields (minute hour day-of-month month day-of-week), e.g. "0 0 * * *"`);
  const parts = spec.split(/\s+/).filter((p) => p !== '');
  if (parts.length !== 5) throw new CronError(`expected exactly 5 fields, found ${parts.length}: [${parts.join(' ')}]`);
  const [minutes, hours, days, months, weekdays] = parts.map((p, i) => parseField(FIELDS[i]!, p));
  return {
    minutes: minutes!.values,
    hours: hours!.values,
    days: days!.values,
    months: months!.values,
    weekdays: weekdays!.values,
    dayRestricted: !days!.star,
    weekdayRestricted: !weekdays!.star,
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
  // A field of commas only ("0 0 , * *") parses, as in Vault, and never fires.
  if ([s.minutes, s.hours, s.days, s.months, s.weekdays].some((v) => v.size === 0)) return undefined;
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
