// What every keyward resource receives from the configured provider: the server client (absent
// while the provider block still has unknown values, at plan time), the fingerprint key and the
// environment secrets are read from.

import type { VaultClient } from '../../client/vault-client';
import { isPlanOnly, PLAN_ONLY_APPLY_REFUSED, PLAN_ONLY_ENV, PLAN_ONLY_MARKED_REFUSED } from '../../schema/plan-only';
import type { ObjectValue } from '../plugin/contract';
import { DiagnosticsError } from '../plugin/contract';

export interface KeywardProviderContext {
  /** undefined when the provider was configured with unknown values (plan before apply). */
  client?: VaultClient;
  /** HMAC key of secret fingerprints; null when unknown at plan time. */
  fingerprintSalt: string | null;
  /** The deploying process's environment (secrets referenced by `<field>_env`). */
  env: NodeJS.ProcessEnv;
  /** Concurrent requests for reads and writes of many roles. */
  parallelism: number;
}

/**
 * The client apply writes with, or a diagnostic saying why there is none: unknown provider config,
 * or plan-only mode (KEYWARD_PLAN_ONLY), whose plans took unset secrets as unchanged.
 */
export function clientOf(ctx: KeywardProviderContext): VaultClient {
  if (isPlanOnly(ctx.env)) throw new DiagnosticsError([{ severity: 'error', summary: `${PLAN_ONLY_ENV} is set: nothing is applied`, detail: PLAN_ONLY_APPLY_REFUSED }]);
  if (ctx.client) return ctx.client;
  throw new DiagnosticsError([
    {
      severity: 'error',
      summary: 'The keyward provider is not configured',
      detail: 'The provider block has values that are only known after apply; keyward needs them to reach the server.',
    },
  ]);
}

/**
 * The provider block's plan-only mark outside plan-only mode: applying a plan saved in plan-only
 * mode (or planning a configuration synthesized in it). Checked when the provider is configured,
 * the one step every apply runs, changes or none.
 */
export function refusePlanOnlyMark(config: ObjectValue, env: NodeJS.ProcessEnv): void {
  if (config.plan_only !== true || isPlanOnly(env)) return;
  throw new DiagnosticsError([{ severity: 'error', summary: 'A plan-only configuration cannot be applied', detail: PLAN_ONLY_MARKED_REFUSED, attribute: ['plan_only'] }]);
}
