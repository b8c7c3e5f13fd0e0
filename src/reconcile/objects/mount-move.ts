// What counts as a move of an auth mount: the one rule every front end calls with its own facts.
// The CLI's plan (a declared movedFrom, the live read), the PR plan (Terraform's state paired with
// the synthesized stack by resource), `keyward show` (a saved plan's prior and planned values of
// one resource) and the provider (its prior state and its config) each hand over what they know;
// this decides whether it is a move, from where, and whether the config's rotation goes with it.
// What a move then does (sys/remount, the token-revocation warning, the rotation rewrite on Vault
// Enterprise) is decide.ts over auth-mount.ts, given the move this returns.

import { rotationConfigured } from '../../schema/cloud-config-fields';
import type { Json } from '../model';

/** A move of the mount from `from` to `to` (sys/remount). `rotates`: the declared config has root rotation. */
export interface MountMove {
  from: string;
  to: string;
  rotates: boolean;
}

/** What a front end knows about one declared mount. */
export interface MoveFacts {
  /** The declared path. */
  to: string;
  /** The declaration's own word: the manifest's `movedFrom` (CloudAuthBackend's movedFrom). It wins. */
  movedFrom?: string;
  /**
   * Where the record of the same backend puts it: Terraform's state of the same resource, a saved
   * plan's prior of the same resource, the provider's prior state. keyward's own record is keyed by
   * path, so it never pairs two paths and gives none.
   */
  recorded?: string;
  /** Terraform replaces the resource (a replace-forcing field, or -replace=): a new mount, never a move. */
  replaced?: boolean;
  /**
   * What the server holds, where the front end read it (the CLI's live read): a move needs the
   * earlier path and a free declared one; otherwise it is done already, or there is nothing to move.
   */
  live?: { from: boolean; to: boolean };
  /** The declared config's canonical fields: its root rotation is registered again after the move. */
  config?: Readonly<Record<string, Json>>;
}

/** The move the facts make, or undefined when the mount stays where it is (or is created anew). */
export function mountMove(f: MoveFacts): MountMove | undefined {
  if (f.replaced) return undefined;
  const from = f.movedFrom !== undefined && f.movedFrom !== f.to ? f.movedFrom : f.recorded !== undefined && f.recorded !== f.to ? f.recorded : undefined;
  if (from === undefined) return undefined;
  if (f.live && (f.live.to || !f.live.from)) return undefined;
  return { from, to: f.to, rotates: f.config !== undefined && rotationConfigured(f.config) };
}
