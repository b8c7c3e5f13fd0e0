// The auth config's one decision about its credentials (the CLI's diff and the provider's plan and
// apply both call it): whether the declared key is sent, cleared or left alone, and what the plan
// says. Vault's rotate-root (vault-plugin-auth-gcp path_config_rotate_root.go) creates a new key and
// deletes the old one at Google at once, so re-sending a declared key the server has moved past
// leaves Vault with a dead key: a key the server holds and keyward did not write is the server's.

/** The declaration against the last apply: unchanged, changed (the user rotated it), or no last apply (import, adoption). */
export type LastApply = 'same' | 'changed' | 'none';

export interface CredentialsFacts {
  /** The configuration declares credentials. */
  declared: boolean;
  /** private_key_id of the declared key, when its value is known at plan. */
  declaredKeyId?: string;
  lastApply: LastApply;
  /** keyward set credentials at the last apply (so dropping them from the declaration clears them). */
  setByKeyward: boolean;
  /** The server holds credentials (a read shows a private_key_id or client_email). */
  liveSet: boolean;
  liveKeyId?: string;
  /** Rotation is declared: the server is expected to move past the declared key. */
  rotates: boolean;
  /** The user asked for the declared key to be sent regardless (--resend, a version attribute bumped). */
  force: boolean;
  /** The declaration sets workload identity (identity_token_audience), which Vault refuses beside a key. */
  workloadIdentity?: boolean;
}

export interface CredentialsDecision {
  /** 'value': send the declared key; 'clear': send ""; 'none': send nothing. */
  send: 'value' | 'clear' | 'none';
  /** What the plan says when the server's key wins (rendered by the CLI and as a Terraform warning). */
  warning?: string;
}

const FORCE_HINT =
  'To send the declared key anyway, say so explicitly: `keyward apply --resend auth/<mount>/config`, or in Terraform change `credentials_wo_version` (or run `terraform apply -replace`).';

/**
 * Switching to workload identity where the server holds a key keyward did not write: Vault refuses
 * the write ("only one of 'credentials' or 'identity_token_audience' can be set",
 * path_config.go), so the key is cleared in the same write, and the plan says so.
 */
export const WIF_CLEARS_KEY =
  "the server holds credentials keyward did not write, and the declaration switches to workload identity (identity_token_audience): Vault allows only one of 'credentials' or 'identity_token_audience', so this apply clears the server's key (logins then use the workload identity).";

export function credentialsDecision(f: CredentialsFacts): CredentialsDecision {
  if (!f.declared) {
    if (f.liveSet && f.setByKeyward) return { send: 'clear' };
    if (f.liveSet && f.workloadIdentity) return { send: 'clear', warning: WIF_CLEARS_KEY };
    return { send: 'none' };
  }
  if (!f.liveSet || f.force || f.lastApply === 'changed') return { send: 'value' };
  const known = f.liveKeyId !== undefined && f.declaredKeyId !== undefined;
  if (known && f.liveKeyId === f.declaredKeyId) return { send: 'none' };
  if (known) {
    // Rotation declared and nothing else changed: the server moving on is the expected course.
    if (f.rotates && f.lastApply === 'same') return { send: 'none' };
    return {
      send: 'none',
      warning: `the server holds another key (private_key_id ${f.liveKeyId}) than the declared one (${f.declaredKeyId}): rotated by Vault or set outside keyward, it is kept and the declared key is not sent (Vault deletes a rotated key at Google, so sending it again would break every login that needs Google's APIs). ${FORCE_HINT}`,
    };
  }
  if (f.lastApply === 'same') return { send: 'none' };
  return {
    send: 'none',
    warning: `the server holds credentials keyward did not write and cannot compare with the declared key (its private_key_id is unknown): they are kept and the declared key is not sent. ${FORCE_HINT}`,
  };
}

/** private_key_id of a service-account key JSON (not a secret: Vault's config read shows it). */
export function keyIdOf(credentials: string | undefined): string | undefined {
  if (credentials === undefined) return undefined;
  try {
    const v = (JSON.parse(credentials) as { private_key_id?: unknown }).private_key_id;
    return typeof v === 'string' && v !== '' ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Config fields OpenBao's GCP auth plugin does not have: no workload identity federation (its
 * SystemView has no GenerateIdentityToken) and no automated root rotation (no rotation manager).
 * Measured on OpenBao 2.7.2 with the plugin v0.19.1: a rotation field is a 422 "unknown fields",
 * identity_token_audience a 500 (unknown method GenerateIdentityToken for service pb.SystemView).
 */
export const OPENBAO_MISSING_CONFIG_FIELDS = [
  'identity_token_audience',
  'identity_token_ttl',
  'rotation_period',
  'rotation_schedule',
  'rotation_window',
  'disable_automated_rotation',
] as const;

/** What the server is, as sys/health tells (the client's ServerInfo). */
export interface ConfigServer {
  openbao?: true;
  version: string;
}

/**
 * Declared config fields the server cannot take, as [field, message]: on OpenBao every declared
 * WIF or rotation field (a declared field is written even at its default, so declaring one is
 * enough). Nothing on Vault or on keyward's engine, which have them.
 */
export function configServerProblems(server: ConfigServer, declared: Iterable<string>): Array<[field: string, message: string]> {
  if (!server.openbao) return [];
  const missing = new Set<string>(OPENBAO_MISSING_CONFIG_FIELDS);
  return [...declared]
    .filter((f) => missing.has(f))
    .map((f) => {
      const what = f.startsWith('identity_token_') ? 'workload identity federation (identity tokens)' : 'automated root rotation';
      return [f, `OpenBao ${server.version} has no ${f}: its GCP auth plugin has no ${what} (OpenBao refuses the write), so remove ${f} from the declaration`];
    });
}
