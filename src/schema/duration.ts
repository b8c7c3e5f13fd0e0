// Durations as Vault's framework accepts them: integer seconds (number or digit string), Go duration
// strings ("90s", "1h30m", "1.5h"), and "<n>d" days. Always canonicalized to whole seconds.

const UNIT_SECONDS: Record<string, number> = {
  ns: 1e-9,
  us: 1e-6,
  µs: 1e-6,
  μs: 1e-6,
  ms: 1e-3,
  s: 1,
  m: 60,
  h: 3600,
  d: 86400,
};

export class DurationError extends Error {}

/** Parses a duration input into whole seconds (fractions truncated). Empty string and null are 0. */
export function parseDurationSeconds(input: unknown): number {
  if (input === null || input === undefined || input === '') return 0;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) throw new DurationError(`invalid duration ${String(input)}`);
    if (input < 0) throw new DurationError(`cannot provide negative value '${input}'`);
    return Math.trunc(input);
  }
  if (typeof input !== 'string') throw new DurationError(`invalid duration of type ${Array.isArray(input) ? 'array' : typeof input}`);
  const s = input.trim();
  if (/^-?\d+$/.test(s)) {
    const n = Number(s);
    if (n < 0) throw new DurationError(`cannot provide negative value '${s}'`);
    if (!Number.isSafeInteger(n)) throw new DurationError(`duration ${JSON.stringify(input)} is out of range`);
    return n;
  }
  if (s.startsWith('-')) throw new DurationError(`cannot provide negative value '${s}'`);
  const total = goDurationSeconds(s.startsWith('+') ? s.slice(1) : s);
  if (total === undefined) {
    throw new DurationError(`time: invalid duration ${JSON.stringify(input)} (use seconds or a duration such as "90s", "15m", "1h30m", "7d")`);
  }
  if (!Number.isFinite(total) || total > Number.MAX_SAFE_INTEGER) throw new DurationError(`duration ${JSON.stringify(input)} is out of range`);
  return Math.trunc(total + 1e-9);
}

/**
 * The seconds (with fractions) of a Go duration string without sign ("1h30m", "500ms", "1.5h", and
 * "7d"); undefined when the text is not one.
 */
export function goDurationSeconds(text: string): number | undefined {
  // Micro as U+00B5 and U+03BC (Go takes both), escaped: the provider's bundle stays ASCII (bundle-provider.js).
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h|d)/gy;
  let total = 0;
  let consumed = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    total += Number(m[1]) * UNIT_SECONDS[m[2]];
    consumed = re.lastIndex;
  }
  return consumed > 0 && consumed === text.length ? total : undefined;
}

/** Formats whole seconds the way Go's time.Duration prints them ("1h4m59s", "15m0s", "0s"). */
export function formatGoDuration(seconds: number): string {
  if (seconds === 0) return '0s';
  const neg = seconds < 0;
  let rest = Math.abs(seconds);
  const h = Math.floor(rest / 3600);
  rest -= h * 3600;
  const m = Math.floor(rest / 60);
  const s = rest - m * 60;
  const secText = Number.isInteger(s) ? `${s}s` : `${s.toFixed(3).replace(/0+$/, '')}s`;
  const text = h > 0 ? `${h}h${m}m${secText}` : m > 0 ? `${m}m${secText}` : secText;
  return neg ? `-${text}` : text;
}
