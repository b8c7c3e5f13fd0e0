// The config's credentials in Terraform's terms: the prior state, the configuration and a read of
// the server turned into the facts of the shared decision (src/reconcile/objects/auth-config.ts),
// which says whether the declared key is sent. Only the attribute bookkeeping is Terraform's here.

import type { VaultClient } from '../../client/vault-client';
import { finishConfig } from '../../reconcile/canonical';
import { credentialsDecision, keyIdOf, type CredentialsDecision, type LastApply } from '../../reconcile/objects/auth-config';
import { rotationConfigured } from '../../schema/cloud-config-fields';
import type { AttributePath, Diagnostic, ObjectValue } from '../plugin/contract';
import type { KeywardProviderContext } from './context';
import { CONFIG_SECRET as F } from '../../schema/cloud-config-fields';
import { secretToSend } from './secrets';
import { str } from './values';

const set = (v: unknown) => v !== null && v !== undefined;

/** The declaration against the prior state: Terraform's record of the last apply (none after an import). */
function lastApplyOf(config: ObjectValue, prior: ObjectValue | null, planned: ObjectValue): LastApply {
  if (!prior || (!set(prior[`${F}_fingerprint`]) && !set(prior[`${F}_wo_version`]))) return 'none';
  if (str(config[`${F}_env`]) !== undefined) return prior[`${F}_fingerprint`] === planned[`${F}_fingerprint`] && set(prior[`${F}_fingerprint`]) ? 'same' : 'changed';
  return prior[`${F}_wo_version`] === config[`${F}_wo_version`] && !set(prior[`${F}_env`]) ? 'same' : 'changed';
}

/** The declared value (from the environment variable or the write-only attribute), if given. */
function declaredValue(ctx: KeywardProviderContext, config: ObjectValue): string | undefined {
  const env = str(config[`${F}_env`]);
  return env !== undefined ? ctx.env[env] : str(config[`${F}_wo`]);
}

/**
 * The decision for prior -> planned. The server is read only when the answer depends on the key it
 * holds (not for a changed declaration or an explicit resend).
 */
export async function decideCredentials(
  ctx: KeywardProviderContext,
  client: VaultClient | undefined,
  path: string,
  config: ObjectValue,
  prior: ObjectValue | null,
  planned: ObjectValue,
  fields: ObjectValue,
): Promise<CredentialsDecision> {
  const declared = str(config[`${F}_env`]) !== undefined || str(config[`${F}_wo`]) !== undefined;
  const lastApply = lastApplyOf(config, prior, planned);
  const setByKeyward = prior !== null && (set(prior[`${F}_fingerprint`]) || set(prior[`${F}_wo_version`]));
  // With an environment variable, bumping credentials_wo_version is the explicit "send it again"
  // (a version appearing where the prior state had none, as after an import, is not a bump).
  const force = declared && str(config[`${F}_env`]) !== undefined && prior !== null && set(prior[`${F}_wo_version`]) && config[`${F}_wo_version`] !== prior[`${F}_wo_version`];
  const workloadIdentity = !!str(fields.identity_token_audience);
  let liveSet = true;
  let liveKeyId: string | undefined;
  // Read the server when the answer depends on its key: a kept declared key, or a switch to workload identity over a key keyward did not write.
  if ((declared && lastApply !== 'changed' && !force) || (!declared && !setByKeyward && workloadIdentity)) {
    const data = client ? await readConfigOrNone(client, path) : undefined;
    liveKeyId = typeof data?.private_key_id === 'string' && data.private_key_id !== '' ? data.private_key_id : undefined;
    liveSet = liveKeyId !== undefined || typeof data?.client_email === 'string';
  }
  return credentialsDecision({
    declared,
    declaredKeyId: keyIdOf(declaredValue(ctx, config)),
    lastApply,
    setByKeyward,
    liveSet,
    liveKeyId,
    rotates: rotationConfigured(finishConfig(fields as Record<string, unknown>)),
    force,
    workloadIdentity,
  });
}

async function readConfigOrNone(client: VaultClient, path: string): Promise<Record<string, unknown> | undefined> {
  if (!(await client.sys.listAuthMounts()).has(path)) return undefined;
  return (await client.cloud(path).readConfig()) ?? undefined;
}

/** The plan's warning when the server's key wins, on the attribute that declares the key. */
export function credentialsWarning(base: AttributePath, config: ObjectValue, d: CredentialsDecision): Diagnostic[] {
  if (!d.warning) return [];
  if (d.send === 'clear')
    return [{ severity: 'warning', summary: "The server's credentials are cleared for workload identity", detail: d.warning, attribute: [...base, 'identity_token_audience'] }];
  const attr = str(config[`${F}_env`]) !== undefined ? `${F}_env` : `${F}_wo`;
  return [{ severity: 'warning', summary: 'The declared credentials are not sent: the server holds another key', detail: d.warning, attribute: [...base, attr] }];
}

/** The credentials value an apply writes (checked against the plan's fingerprint), "" to clear, or undefined. */
export function credentialsToWrite(ctx: KeywardProviderContext, base: AttributePath, config: ObjectValue, planned: ObjectValue, d: CredentialsDecision): string | undefined {
  if (d.send === 'none') return undefined;
  if (d.send === 'clear') return '';
  // The value, its environment variable and the planned fingerprint checked as for every secret.
  const v = secretToSend(ctx, base, F, config, null, planned);
  return v === '' ? undefined : v;
}
