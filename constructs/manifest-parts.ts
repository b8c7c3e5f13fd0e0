// What a construct contributes to its stack's manifest: the server construct collects these parts
// at synth time without importing the constructs that produce them (no import cycle).

import { fingerprintSecret, type ManifestInput, type SecretRef } from '../src/schema/manifest';
import type { SecretBinding } from './secret';

export type AuthBackendEntry = NonNullable<ManifestInput['authBackends']>[number];
export type RoleEntry = NonNullable<AuthBackendEntry['roles']>[number];
export type SnapshotEntry = NonNullable<ManifestInput['snapshotConfigs']>[number];

/** What happens to an object on `cdktf destroy`. */
export enum RemovalPolicy {
  /** `cdktf destroy` deletes the object from the server. */
  DESTROY = 'destroy',
  /** `cdktf destroy` leaves the object on the server (it is no longer managed). */
  RETAIN = 'retain',
}

/**
 * Passed to parts while rendering the manifest: turns secret bindings into manifest references. A
 * plain secret's fingerprint (keyed HMAC) is computed now; a Terraform-variable secret's value is
 * unknown until Terraform runs, so keyward computes its fingerprint from the environment.
 */
export class ManifestContext {
  constructor(readonly fingerprintSalt: string) {}

  secretRef(b: SecretBinding): SecretRef {
    const fingerprint = b.plainValue !== undefined ? fingerprintSecret(this.fingerprintSalt, b.plainValue) : undefined;
    return { secretRef: fingerprint ? { env: b.env, fingerprint } : { env: b.env } };
  }
}

/** A manifest part: an auth backend or a snapshot config. */
export interface ManifestPart {
  readonly removalPolicy: RemovalPolicy;
}

export interface AuthBackendPart extends ManifestPart {
  readonly path: string;
  readonly node: { readonly path: string };
  renderAuthBackend(ctx: ManifestContext): AuthBackendEntry;
}

export interface SnapshotPart extends ManifestPart {
  readonly configName: string;
  readonly node: { readonly path: string };
  renderSnapshotConfig(ctx: ManifestContext): SnapshotEntry;
}

/** Drops undefined members so the JSON holds only what was declared. */
export function compact<T extends Record<string, unknown>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
