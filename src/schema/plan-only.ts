// Plan-only mode (KEYWARD_PLAN_ONLY=1): a pull-request plan made without production secrets. An
// unset secret is taken as unchanged (the fingerprint stored by the last apply is kept) and the plan
// says which; nothing may be applied in this mode. Read by synth (the constructs), the provider
// (cdktf diff) and `keyward plan`, so all three agree.

export const PLAN_ONLY_ENV = 'KEYWARD_PLAN_ONLY';

export function isPlanOnly(env: NodeJS.ProcessEnv): boolean {
  const v = env[PLAN_ONLY_ENV];
  return v !== undefined && ['1', 'true', 'yes'].includes(v.trim().toLowerCase());
}

/** Why an apply is refused in plan-only mode. */
export const PLAN_ONLY_APPLY_REFUSED = `${PLAN_ONLY_ENV} is set: this run may only plan (unset secrets were taken as unchanged). Unset ${PLAN_ONLY_ENV} and set every secret's environment variable to apply.`;

/** What a plan says about a secret it took as unchanged. */
export const unsetSecretNote = (env: string): string =>
  `${env} is not set: plan-only mode (${PLAN_ONLY_ENV}) takes the secret as unchanged (the fingerprint of the last apply); applying needs ${env}`;

/**
 * A configuration synthesized in plan-only mode carries the mark (the provider block's `plan_only`)
 * into Terraform's saved plan, whose apply reads the environment anew and calls no apply for an
 * unchanged resource: only the configured provider can refuse it, whatever the plan changes.
 */
export const PLAN_ONLY_MARKED_REFUSED = `this configuration was made in plan-only mode (plan_only = true, from ${PLAN_ONLY_ENV} at synth): unset secrets were taken as unchanged, so it is never applied, change or no change. Synthesize and plan again without ${PLAN_ONLY_ENV} (cdktf deploy does), with every secret's environment variable set.`;
