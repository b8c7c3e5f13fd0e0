// `--resend <object>`: the user's explicit word that an object's declared secrets are sent even
// where the server's own would win (a key Vault rotated: src/reconcile/objects/auth-config.ts).

import type { DesiredState } from '../reconcile/desired';

/** Marks the named objects (ids as the plan shows them, e.g. auth/cloud/config) for resending; refuses unknown ones. */
export function withResend(desired: DesiredState, ids: readonly string[] | undefined): DesiredState {
  if (!ids || ids.length === 0) return desired;
  for (const id of ids) {
    const d = desired.objects.get(id);
    if (!d || Object.keys(d.secrets).length === 0) {
      throw new Error(`--resend ${id}: no declared object with secrets has that id (use the id the plan shows, like auth/cloud/config or snapshot/daily)`);
    }
  }
  return { ...desired, resend: new Set(ids) };
}
