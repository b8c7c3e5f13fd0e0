// Secret fields, provider side. Each secret is four attributes: `<field>_env` (name of an
// environment variable of the deploying process, read at plan for the fingerprint and at apply for
// the value), `<field>_wo` (write-only, Terraform >= 1.11), `<field>_wo_version` (bump to resend)
// and `<field>_fingerprint` (computed keyed HMAC). Values never enter state, plans or diagnostics.

import { ENV_NAME, fingerprintSecret } from '../../schema/manifest';
import { isPlanOnly, unsetSecretNote } from '../../schema/plan-only';
import { DiagnosticsError, UNKNOWN, type AttributePath, type Diagnostic, type ObjectValue, type Value } from '../plugin/contract';
import type { KeywardProviderContext } from './context';
import { errorAt, str } from './values';

/**
 * The planned secret attributes of `field` in `planned` (mutated), with diagnostics. In plan-only
 * mode (KEYWARD_PLAN_ONLY) an unset variable keeps the prior fingerprint (unknown for a new
 * object), with a warning naming it; apply then refuses (see the provider's apply guard).
 */
export function planSecret(ctx: KeywardProviderContext, base: AttributePath, field: string, config: ObjectValue, planned: ObjectValue, prior?: ObjectValue | null): Diagnostic[] {
  const envAttr = `${field}_env`;
  const envName = config[envAttr];
  const wo = config[`${field}_wo`];
  planned[`${field}_wo`] = null;
  planned[`${field}_fingerprint`] = null;
  if (envName === UNKNOWN) {
    planned[`${field}_fingerprint`] = UNKNOWN;
    return [];
  }
  if (typeof envName !== 'string') return [];
  if (wo !== null && wo !== undefined) return [errorAt([...base, envAttr], `Set only one of ${field}_env and ${field}_wo`)];
  if (!ENV_NAME.test(envName)) return [errorAt([...base, envAttr], `${envAttr} must be an environment variable name like CLOUD_CREDENTIALS`)];
  const value = ctx.env[envName];
  if (value === undefined && isPlanOnly(ctx.env)) {
    const kept = prior?.[`${field}_env`] === envName ? prior[`${field}_fingerprint`] : undefined;
    planned[`${field}_fingerprint`] = typeof kept === 'string' ? kept : UNKNOWN;
    return [{ severity: 'warning', summary: `${envName} is not set: taken as unchanged (plan only)`, detail: `${unsetSecretNote(envName)}.`, attribute: [...base, envAttr] }];
  }
  if (value === undefined) {
    return [
      errorAt(
        [...base, envAttr],
        `${envName} is not set`,
        `${envAttr} names the environment variable ${envName}, which is not set in the environment of terraform/cdktf; set it (an unset secret is never sent as a reset).`,
      ),
    ];
  }
  planned[`${field}_fingerprint`] = ctx.fingerprintSalt === null ? UNKNOWN : fingerprintSecret(ctx.fingerprintSalt, value);
  return [];
}

/**
 * The secret value to send at apply: undefined = leave the server's value alone, "" = clear it.
 * Env secrets are sent when their fingerprint changed (or the object is new) and must still match
 * the planned fingerprint; write-only ones when new or when `<field>_wo_version` changed.
 */
export function secretToSend(
  ctx: KeywardProviderContext,
  base: AttributePath,
  field: string,
  config: ObjectValue,
  prior: ObjectValue | null,
  planned: ObjectValue,
): string | undefined {
  const envName = str(config[`${field}_env`]);
  const wo = str(config[`${field}_wo`]);
  const fresh = prior === null;
  if (envName !== undefined) {
    const value = ctx.env[envName];
    if (value === undefined) throw diag([...base, `${field}_env`], `${envName} is not set`);
    const fp = ctx.fingerprintSalt === null ? null : fingerprintSecret(ctx.fingerprintSalt, value);
    if (fp !== planned[`${field}_fingerprint`]) {
      throw diag([...base, `${field}_env`], `${envName} changed after the plan`, 'Its fingerprint differs from the planned one; plan again.');
    }
    return fresh || prior[`${field}_fingerprint`] !== fp ? value : undefined;
  }
  if (wo !== undefined) {
    const version: Value = config[`${field}_wo_version`];
    return fresh || prior[`${field}_wo_version`] !== version || prior[`${field}_env`] !== null ? wo : undefined;
  }
  // The secret left the configuration: clear what keyward had set.
  if (!fresh && (prior[`${field}_fingerprint`] !== null || prior[`${field}_wo_version`] !== null)) return '';
  return undefined;
}

/**
 * The secret value for a complete write (snapshot configs, whose update may replace the stored
 * object): the declared value whether or not it changed, "" when the declaration dropped a secret
 * keyward had set, undefined when none was ever declared.
 */
export function secretForCompleteWrite(
  ctx: KeywardProviderContext,
  base: AttributePath,
  field: string,
  config: ObjectValue,
  prior: ObjectValue | null,
  planned: ObjectValue,
): string | undefined {
  const changed = secretToSend(ctx, base, field, config, prior, planned);
  if (changed !== undefined) return changed;
  const envName = str(config[`${field}_env`]);
  if (envName !== undefined) return ctx.env[envName];
  const wo = str(config[`${field}_wo`]);
  if (wo !== undefined) return wo;
  if (config[`${field}_wo_version`] !== null && config[`${field}_wo_version`] !== undefined) {
    throw diag(
      [...base, `${field}_wo`],
      `${field}_wo has no value at apply`,
      `Snapshot configs are written whole on every change, secrets included (Vault may replace the stored object), so ${field}_wo must be set in the configuration at every apply that changes this config.`,
    );
  }
  return undefined;
}

/** Whether the planned secret attributes differ from the prior ones (an update to make). */
export function secretChanged(field: string, prior: ObjectValue | null, planned: ObjectValue): boolean {
  if (prior === null) return planned[`${field}_env`] !== null || planned[`${field}_wo_version`] !== null;
  return [`${field}_env`, `${field}_wo_version`, `${field}_fingerprint`].some((a) => prior[a] !== planned[a]);
}

const diag = (path: AttributePath, summary: string, detail?: string) => new DiagnosticsError([errorAt(path, summary, detail)]);
