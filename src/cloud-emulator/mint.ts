// Signing JWTs as the emulated cloud does: self-signed service-account JWTs, provider-signed
// service-account JWTs (signJwt), and instance identity tokens (format=full) signed with the
// OAuth2 keys. All times are explicit (seconds) so tests can use a manual clock.

import { sign } from 'node:crypto';
import type { Description } from './description';
import type { EmulatorKeys, SigningKey } from './keys';

const b64u = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

/** Compact RS256 JWS over a JSON payload. */
export function signRs256(key: SigningKey, payload: Record<string, unknown>, header: Record<string, unknown> = {}): string {
  const input = `${b64u({ alg: 'RS256', typ: 'JWT', kid: key.kid, ...header })}.${b64u(payload)}`;
  return `${input}.${sign('RSA-SHA256', Buffer.from(input), key.privateKey).toString('base64url')}`;
}

export interface MintServiceAccountOptions {
  /** Email or unique id of the account. */
  account: string;
  audience: string | string[] | null;
  /** Issued-at, seconds since epoch (default: now). */
  now?: number;
  /** Lifetime in seconds (default 900); null omits exp. */
  ttl?: number | null;
  /** Index of the user-managed key (default 0). */
  keyIndex?: number;
  /** Sign with the provider-managed key, as signJwt does. */
  providerSigned?: boolean;
  /** Extra or overriding claims. */
  claims?: Record<string, unknown>;
}

export function findAccount(d: Description, account: string) {
  return d.serviceAccounts.find((s) => s.email === account || s.uniqueId === account);
}

export function mintServiceAccountJwt(d: Description, keys: EmulatorKeys, o: MintServiceAccountOptions): string {
  const sa = findAccount(d, o.account);
  if (!sa) throw new Error(`unknown service account ${JSON.stringify(o.account)}`);
  const k = keys.accounts.get(sa.email)!;
  const key = o.providerSigned ? k.system : k.user[o.keyIndex ?? 0];
  if (!key) throw new Error(`service account ${sa.email} has no user-managed key #${o.keyIndex ?? 0}`);
  const now = o.now ?? Math.floor(Date.now() / 1000);
  const ttl = o.ttl === undefined ? 900 : o.ttl;
  const payload: Record<string, unknown> = { iss: sa.email, sub: sa.email, iat: now };
  if (o.audience !== null) payload.aud = o.audience;
  if (ttl !== null) payload.exp = now + ttl;
  return signRs256(key, { ...payload, ...o.claims });
}

export interface MintInstanceOptions {
  instance: string;
  project?: string;
  audience: string;
  now?: number;
  /** Use another OAuth2 key index (default 0). */
  keyIndex?: number;
  claims?: Record<string, unknown>;
}

/** An instance identity token with format=full claims; it lives one hour, like the provider's. */
export function mintInstanceToken(d: Description, keys: EmulatorKeys, o: MintInstanceOptions): string {
  const inst = d.instances.find((i) => i.name === o.instance && (o.project === undefined || i.project === o.project));
  if (!inst) throw new Error(`unknown instance ${JSON.stringify(o.instance)}`);
  const sa = findAccount(d, inst.serviceAccount)!;
  const project = d.projects.find((p) => p.id === inst.project)!;
  const now = o.now ?? Math.floor(Date.now() / 1000);
  const payload = {
    iss: 'https://accounts.google.com',
    aud: o.audience,
    azp: sa.uniqueId,
    sub: sa.uniqueId,
    email: sa.email,
    email_verified: true,
    iat: now,
    exp: now + 3600,
    google: {
      compute_engine: {
        project_id: inst.project,
        project_number: Number(project.number),
        zone: inst.zone,
        instance_id: inst.id,
        instance_name: inst.name,
        instance_creation_timestamp: Math.floor(Date.parse(inst.creationTimestamp) / 1000),
      },
    },
  };
  return signRs256(keys.oauth2[o.keyIndex ?? 0], { ...payload, ...o.claims });
}
