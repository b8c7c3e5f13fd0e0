// The one decision per object (mount, config, snapshot config; roles through roleDecision), taken
// by every front end: the CLI's plan and apply (diff.ts, against the live server), `keyward show`
// of Terraform's saved plan (terraform-plan.ts, against the plan's prior) and the PR plan (diff.ts,
// with Terraform's state as the record). Each takes the declaration, what it is compared with and
// what the record says about it (moved, retained), and returns the action, the move, the reason,
// the warnings and the changes (the writes). Replace-forcing fields come from the field tables.

import { MOUNT_REPLACE_FIELDS } from '../../schema/auth-mount-fields';
import { ROLE_REPLACE_FIELDS } from '../../schema/cloud-role-fields';
import { SNAPSHOT_REPLACE_FIELDS } from '../../schema/snapshot-fields';
import { sameValue, type Action, type FieldChange, type Json, type ObjectKind } from '../model';
import { mountReplaceWarning, moveWarning, ROTATION_AFTER_MOVE, rotationRewrite } from './auth-mount';
import type { MountMove } from './mount-move';
import { ROLE_DELETE_COST, roleDecision } from './role';

/** The fields of a kind whose difference replaces the object: the field tables' lists, nothing else. */
export function replaceFields(kind: ObjectKind): readonly string[] {
  switch (kind) {
    case 'auth-mount':
      return MOUNT_REPLACE_FIELDS;
    case 'role':
      return ROLE_REPLACE_FIELDS;
    case 'snapshot-config':
      return SNAPSHOT_REPLACE_FIELDS;
    case 'auth-config':
      return [];
  }
}

/** Why a removed object is deleted; the reasons every front end prints. */
export const REMOVED_REASON = 'removed from the desired state';
export const RETAINED_REASON = 'removed from the stack with retain_on_destroy (RemovalPolicy.RETAIN): Terraform forgets it, the object stays on the server';
/**
 * A config cannot be deleted, and a reset nobody declared is the surprise: a config removed from a
 * backend is no longer managed and the server keeps it (what the provider does and the constructs
 * document). docs/server-decisions.md states the rule. The `kept: ` prefix lists it in the text and
 * Markdown plans' "Kept" section, so a reviewer of either reads it, not only the JSON.
 */
export const CONFIG_UNMANAGED_REASON = 'kept: removed from the stack: no longer managed, the server keeps it as it is';

/** Why an object is replaced with the Terraform resource that holds it. */
export const replacedReason = (resource: string) => `Terraform replaces ${resource} (destroy and create)`;
export const mountRecreatedReason = (mount: string) => `auth/${mount} is replaced (disabled and enabled again): the object goes with it and is written again`;

/**
 * Inside a replaced mount (its config and roles): written again whole on the new mount, so compared
 * as a create, secrets included (the caller's secret comparison asks here too).
 */
export const writtenWhole = (kind: ObjectKind, replacedWith: string | undefined): boolean => replacedWith !== undefined && (kind === 'auth-config' || kind === 'role');

/** Canonical fields of one side of a comparison (undefined: the object does not exist on that side). */
export type Fields = Readonly<Record<string, Json>>;

export interface DecideContext {
  /**
   * The mount's move (objects/mount-move.ts decides what counts as one): on the mount itself
   * (sys/remount) and on its config (whose rotation is registered again after the move).
   */
  move?: MountMove;
  /** Removed: the resource holding it sets retain_on_destroy and Terraform forgets it as a whole. */
  retained?: boolean;
  /** Removed together with its mount (a config goes with the mount; nothing to decide for it). */
  mountRemoved?: boolean;
  /**
   * Why the object is replaced as a whole, whatever its own fields say: the Terraform resource
   * holding it is replaced (`-replace=`, or a replace-forcing field of its mount; replacedReason), or
   * keyward's own apply replaces its mount (mountRecreatedReason). A mount's or snapshot config's
   * changes are still compared with `before`; a config or role inside is written again whole on
   * the new mount, so its changes are a create's and every front end's plan (and review digest)
   * of the same replace agrees.
   */
  replacedWith?: string;
  /** On a mount: the roles it holds, which a replace of the mount deletes and creates again (named by its warning). */
  roles?: readonly string[];
  /** Secret comparisons (fingerprints, the credentials decision): made by the caller, counted here. */
  secretChanges?: FieldChange[];
  secretUnchanged?: number;
  secretWarnings?: string[];
}

export interface ObjectDecision {
  action: Action;
  reason: string;
  /** The mount's earlier path, when this decision moves it. */
  moveFrom?: string;
  /** The fields whose difference forces the replace. */
  replaceReason?: string[];
  warnings: string[];
  changes: FieldChange[];
  unchangedFields: number;
}

/** Field differences of a declared object against what it is compared with, replace-forcing ones marked. */
export function fieldChanges(kind: ObjectKind, after: Fields, before: Fields | undefined): { changes: FieldChange[]; unchanged: number } {
  const forcing = replaceFields(kind);
  const changes: FieldChange[] = [];
  let unchanged = 0;
  for (const [field, a] of Object.entries(after)) {
    const b = before?.[field];
    if (before && sameValue(b, a)) {
      unchanged++;
      continue;
    }
    const c: FieldChange = { field, after: a };
    if (before && b !== undefined) c.before = b;
    if (before && forcing.includes(field)) c.forcesReplace = true;
    changes.push(c);
  }
  return { changes, unchanged };
}

/**
 * The decision for one object. `after`: the declaration (undefined: removed from the stack);
 * `before`: the live object or the record's (undefined: it does not exist). Undefined when there
 * is nothing to decide (a config removed with its mount).
 */
export function decide(kind: ObjectKind, after: Fields | undefined, before: Fields | undefined, ctx: DecideContext = {}): ObjectDecision | undefined {
  if (!after) {
    if (!before) return undefined;
    if (kind === 'auth-config') {
      if (ctx.mountRemoved) return undefined;
      return { action: 'no-op', reason: CONFIG_UNMANAGED_REASON, warnings: [], changes: [], unchangedFields: 0 };
    }
    const changes = Object.entries(before).map(([field, b]) => ({ field, before: b }));
    // RETAIN is the whole backend's (or snapshot config's) fate when Terraform forgets its resource.
    const reason = ctx.retained ? RETAINED_REASON : REMOVED_REASON;
    const warnings = kind === 'role' && !ctx.retained ? [`deleting the role: ${ROLE_DELETE_COST}`] : [];
    return { action: 'delete', reason, warnings, changes, unchangedFields: 0 };
  }
  const whole = writtenWhole(kind, ctx.replacedWith);
  const f = fieldChanges(kind, after, whole ? undefined : before);
  const changes = [...f.changes, ...(ctx.secretChanges ?? [])];
  const unchangedFields = f.unchanged + (ctx.secretUnchanged ?? 0);
  const warnings: string[] = [];
  const move = kind === 'auth-mount' && before !== undefined ? ctx.move : undefined;
  if (move) {
    changes.unshift({ field: 'path', before: move.from, after: move.to });
    warnings.push(moveWarning(move.from, move.to, move.rotates));
  }
  // A moved mount's root rotation is registered again by writing the config's rotation fields.
  const rewrite = kind === 'auth-config' && before !== undefined && ctx.move ? rotationRewrite(after) : undefined;
  let rewritten = 0;
  for (const [field, v] of Object.entries(rewrite ?? {})) {
    if (changes.some((c) => c.field === field)) continue;
    changes.push({ field, before: before![field] ?? v, after: v });
    rewritten++;
  }
  warnings.push(...(ctx.secretWarnings ?? []));
  const replaceReason = changes.filter((c) => c.forcesReplace).map((c) => c.field);
  // A role's action is its shared decision (objects/role.ts), the one the provider's role resources make.
  let action: Action = kind === 'role' ? roleDecision(before, after).action : !before ? 'create' : replaceReason.length > 0 ? 'replace' : changes.length > 0 ? 'update' : 'no-op';
  let reason = rewrite ? `declared; ${ROTATION_AFTER_MOVE}` : 'declared';
  // Destroyed and created with what holds it: the object goes too, whatever its fields say.
  if (ctx.replacedWith !== undefined && before && (action === 'no-op' || action === 'update')) {
    action = 'replace';
    reason = ctx.replacedWith;
  }
  if (kind === 'role' && action === 'replace') warnings.push(`replacing the role deletes it first: ${ROLE_DELETE_COST}`);
  if (kind === 'auth-mount' && action === 'replace') warnings.push(mountReplaceWarning(ctx.roles ?? []));
  const out: ObjectDecision = { action, reason, warnings, changes, unchangedFields: unchangedFields - rewritten };
  if (move) out.moveFrom = move.from;
  if (action === 'replace' && replaceReason.length > 0) out.replaceReason = replaceReason;
  return out;
}

export const decideMount = (after: Fields | undefined, before: Fields | undefined, ctx?: DecideContext) => decide('auth-mount', after, before, ctx);
export const decideConfig = (after: Fields | undefined, before: Fields | undefined, ctx?: DecideContext) => decide('auth-config', after, before, ctx);
export const decideSnapshotConfig = (after: Fields | undefined, before: Fields | undefined, ctx?: DecideContext) => decide('snapshot-config', after, before, ctx);
export const decideRole = (after: Fields | undefined, before: Fields | undefined, ctx?: DecideContext) => decide('role', after, before, ctx);
