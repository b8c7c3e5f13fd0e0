// Which server object a resource holds, kept in its planned private data, so the create half of a
// replace can tell "the object this resource is replacing" from "an object someone else made".
//
// Terraform plans a replace (a replace-forcing change, or `-replace=`) by calling
// PlanResourceChange a second time with a null prior state, while the old object still exists on
// the server; it hands that call the first call's planned private data (terraform
// node_resource_abstract_instance.go, `PriorPrivate: plannedPrivate`). A real create has no
// private data. So a plan with a prior records the object here, and the null-prior plan that finds
// the same object named is a replace: the destroy half deletes it before the create at apply
// (create_before_destroy = false, the default), and the "already exists" guard must let it pass.
// At apply the guard runs again on every create (Terraform plans it again then, with no private
// data): an object still there was made by someone else, or is the one a create_before_destroy
// replace (or a destroy that kept it) has not removed; both are refused, nothing is written.

import { bool } from './values';
import type { ObjectValue } from '../plugin/contract';

/** The server object a resource held when its plan was made. */
export interface HeldObject {
  /** The object's identity on the server: the mount path, the snapshot config's name. */
  id: string;
  /** The resource sets retain_on_destroy: its destroy half forgets the object instead of deleting it. */
  retained: boolean;
}

type PrivateData = Record<string, unknown>;

function parse(priv: Uint8Array | undefined): PrivateData {
  if (!priv || priv.length === 0) return {};
  try {
    const v: unknown = JSON.parse(Buffer.from(priv).toString('utf8'));
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as PrivateData) : {};
  } catch {
    return {};
  }
}

/** The private data with the object `prior` holds recorded (other keys kept). */
export function withHeld(priv: Uint8Array | undefined, id: string, prior: ObjectValue): Uint8Array {
  const held: HeldObject = { id, retained: bool(prior.retain_on_destroy) };
  return Buffer.from(JSON.stringify({ ...parse(priv), held }), 'utf8');
}

/** The object recorded by withHeld, if any. */
export function heldOf(priv: Uint8Array | undefined): HeldObject | undefined {
  const h = parse(priv).held as Partial<HeldObject> | undefined;
  return h && typeof h.id === 'string' ? { id: h.id, retained: h.retained === true } : undefined;
}

/**
 * A create (no prior state) of the object `id`: is it the create half of a replace of that same
 * object? (A replace that also changes the identity creates a different object: a real create.)
 */
export function replacesHeld(priv: Uint8Array | undefined, id: string): HeldObject | undefined {
  const h = heldOf(priv);
  return h?.id === id ? h : undefined;
}

/** Why a replace of a retained object cannot be planned: its destroy half keeps the object, so the create half would find it. */
export function retainedReplaceDetail(what: string): string {
  return `This resource sets retain_on_destroy (RemovalPolicy.RETAIN), so the destroy half of a replace only forgets ${what} and leaves it on the server, where the create half would find it. Set retain_on_destroy = false and apply, then replace it; or remove it from the state (terraform state rm) and delete it by hand first.`;
}

/**
 * What every "already exists" refusal adds: at apply Terraform plans the create half of a
 * create_before_destroy replace again with no prior and no private data, so the refusal cannot
 * tell that case from an object someone else made, and names both.
 */
export function createBeforeDestroyNote(what: string): string {
  return `If this is a replace with create_before_destroy: the replacement has the identity of the ${what} it replaces and would be written over it before its own destroy deletes it; remove create_before_destroy from this resource (Terraform then destroys before it creates).`;
}
