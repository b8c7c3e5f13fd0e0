// The cloud auth config's keyless fields: workload identity federation (service_account_email,
// identity_token_audience, identity_token_ttl) and root credential rotation (rotation_period,
// rotation_schedule, rotation_window, disable_automated_rotation). Vault's rules, checked on the
// merged config as Vault's gcpConfig.Update does; read shape as Vault's (integer seconds).

import { IDENTITY_TOKEN_TTL_DEFAULT, cloudConfigProblems } from './cloud-config-fields';
import { field } from './fields';
import { ApiError } from './errors';
import { CronError, parseCron } from './cron';

/** Vault's default plugin identity token lifetime, in seconds. */
export const DEFAULT_IDENTITY_TOKEN_TTL = IDENTITY_TOKEN_TTL_DEFAULT;

export const keylessWriteShape = {
  service_account_email: field.string(),
  identity_token_audience: field.string(),
  identity_token_ttl: field.duration(),
  rotation_period: field.duration(),
  rotation_schedule: field.string(),
  rotation_window: field.duration(),
  disable_automated_rotation: field.bool(),
};

export interface KeylessWrite {
  service_account_email?: string;
  identity_token_audience?: string;
  identity_token_ttl?: number;
  rotation_period?: number;
  rotation_schedule?: string;
  rotation_window?: number;
  disable_automated_rotation?: boolean;
}

/** What the engine stores: the fields as written (absent = Vault's default: "", 3600 s, 0, false). */
export type KeylessConfig = KeylessWrite;

/** Vault's documented minimum rotation_period (rotationfields.mdx). */
export const MIN_ROTATION_PERIOD_SECONDS = 10;

const bad = (msg: string) => new ApiError('invalid_request', [msg]);
// Shape check only: the engine impersonates this account, so a typo should fail at write time.
const EMAIL = /^[^\s@]+@[^\s@]+$/;

function nonNegative(name: string, v: number): number {
  if (v < 0) throw bad(`field "${name}" must be zero or a positive number of seconds, got ${v}`);
  return v;
}

function setOrClear<K extends keyof KeylessConfig>(c: KeylessConfig, k: K, v: KeylessConfig[K], isDefault: boolean): void {
  if (isDefault) delete c[k];
  else c[k] = v;
}

/**
 * Merges the keyless fields of a write into `next` (which already holds the merged rest of the
 * config), then checks the cross-field rules on the result. `hasCredentials` is whether the merged
 * config holds a key. Errors name the fields and the rule.
 */
export function applyKeylessWrite<C extends KeylessConfig>(next: C, values: KeylessWrite, hasCredentials: boolean): C {
  const v = values;
  if (v.service_account_email !== undefined) {
    const email = v.service_account_email.trim();
    if (email !== '' && !EMAIL.test(email))
      throw bad(`field "service_account_email" must be a service account email (name@project.iam.gserviceaccount.com), got ${JSON.stringify(email)}`);
    setOrClear(next, 'service_account_email', email, email === '');
  }
  if (v.identity_token_audience !== undefined) {
    const aud = v.identity_token_audience.trim();
    setOrClear(next, 'identity_token_audience', aud, aud === '');
  }
  if (v.identity_token_ttl !== undefined) {
    const ttl = nonNegative('identity_token_ttl', v.identity_token_ttl);
    // Stored as sent, the default's value included, and read back as stored (0 when unset), as Vault.
    setOrClear(next, 'identity_token_ttl', ttl, ttl === 0);
  }
  if (v.rotation_schedule !== undefined) {
    const s = v.rotation_schedule.trim();
    if (s !== '') {
      try {
        parseCron(s);
      } catch (e) {
        if (e instanceof CronError) throw bad(`failed to parse provided rotation_schedule: ${e.message}`);
        throw e;
      }
    }
    setOrClear(next, 'rotation_schedule', s, s === '');
  }
  if (v.rotation_period !== undefined) {
    const p = nonNegative('rotation_period', v.rotation_period);
    // Vault's documented minimum: a shorter period creates and deletes a provider key every few seconds.
    if (p > 0 && p < MIN_ROTATION_PERIOD_SECONDS) throw bad(`field "rotation_period" must be 0 (off) or at least ${MIN_ROTATION_PERIOD_SECONDS} seconds, got ${p}`);
    setOrClear(next, 'rotation_period', p, p === 0);
  }
  if (v.rotation_window !== undefined) {
    const w = nonNegative('rotation_window', v.rotation_window);
    setOrClear(next, 'rotation_window', w, w === 0);
  }
  if (v.disable_automated_rotation !== undefined) setOrClear(next, 'disable_automated_rotation', true, !v.disable_automated_rotation);
  // automatedrotationutil checks the window against the schedule of the same request (GetOk: zero
  // values count as absent), not the stored one: a window-only change is refused, as on Vault.
  if ((v.rotation_window ?? 0) > 0 && (v.rotation_schedule ?? '').trim() === '') throw bad('cannot use rotation_window without rotation_schedule');

  const problems = cloudConfigProblems(next as unknown as Record<string, unknown>, hasCredentials);
  if (problems.length > 0) throw bad(problems[0]);
  return next;
}

/** The keyless part of the config read, as Vault returns it (always present except the email). */
export function keylessReadShape(c: KeylessConfig): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (c.service_account_email) out.service_account_email = c.service_account_email;
  out.identity_token_audience = c.identity_token_audience ?? '';
  out.identity_token_ttl = c.identity_token_ttl ?? 0;
  out.rotation_schedule = c.rotation_schedule ?? '';
  out.rotation_window = c.rotation_window ?? 0;
  out.rotation_period = c.rotation_period ?? 0;
  out.disable_automated_rotation = c.disable_automated_rotation ?? false;
  return out;
}

/** Whether the config authenticates by workload identity federation (no key anywhere). */
export function usesFederation(c: KeylessConfig): boolean {
  return Boolean(c.identity_token_audience && c.service_account_email);
}

/** Whether automated rotation is configured and not paused. */
export function automatedRotationActive(c: KeylessConfig): boolean {
  return !c.disable_automated_rotation && Boolean(c.rotation_schedule || c.rotation_period);
}
