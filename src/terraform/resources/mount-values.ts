// The mount part of keyward_cloud_auth_backend: validation, plan and refresh of its own fields
// over the reconciler's canonical mount fields, and the writes a change needs (enable, tune).

import type { AuthMount, AuthMountTune } from '../../client/sys-auth';
import { mountFields } from '../../reconcile/canonical';
import type { Json } from '../../reconcile/model';
import { decideMount } from '../../reconcile/objects/decide';
import { MOUNT_FIELDS, MOUNT_TUNE_FIELDS } from '../../schema/auth-mount-fields';
import { parseDurationSeconds } from '../../schema/duration';
import type { Diagnostic, ObjectValue } from '../plugin/contract';
import { MOUNT_ATTRS, MOUNT_NAMES } from './mount-attributes';
import { errorAt, hasUnknown, pick, plannedSpelling, refreshedSpelling } from './values';

// The backend's `path` and the role resource's `backend` (cloud-auth-*.ts import it from here).
export { MOUNT_PATH } from '../../schema/auth-mount-fields';

/** Canonical mount fields of a resource object (defaults filled in). */
export const mountCanonical = (o: ObjectValue): Record<string, Json> => mountFields('cloud', pick(o, MOUNT_NAMES));

/** One diagnostic per bad value, on its attribute. */
export function validateMount(config: ObjectValue): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const f of MOUNT_FIELDS) {
    const v = config[f.name];
    if (v === null || v === undefined || hasUnknown(v)) continue;
    if (f.kind === 'duration') {
      try {
        parseDurationSeconds(v);
      } catch (e) {
        out.push(errorAt([f.name], `Invalid ${f.name}: ${(e as Error).message}`));
      }
    } else if (f.values && !f.values.includes(String(v))) {
      out.push(errorAt([f.name], `Invalid ${f.name}: must be one of ${f.values.map((x) => JSON.stringify(x)).join(', ')}, got ${JSON.stringify(v)}`));
    }
  }
  return out;
}

/** Planned mount attributes (into `planned`); the fields whose change forces a replace. */
export function planMount(config: ObjectValue, prior: ObjectValue | null, planned: ObjectValue): string[] {
  if (MOUNT_NAMES.some((n) => hasUnknown(config[n]))) return [];
  const c = mountCanonical(config);
  const p = prior ? mountCanonical(prior) : undefined;
  for (const n of MOUNT_NAMES) planned[n] = plannedSpelling(MOUNT_ATTRS[n], config[n], prior ? prior[n] : undefined, c[n], p?.[n]);
  return p ? (decideMount(c, p)?.replaceReason ?? []) : [];
}

/** Refreshed mount attributes (into `out`) from the live mount. */
export function refreshMount(prior: ObjectValue, mount: AuthMount, out: ObjectValue): void {
  const live = mountFields('cloud', { ...mount.config, description: mount.description, local: mount.local });
  const priorCanon = mountCanonical(prior);
  for (const n of MOUNT_NAMES) out[n] = refreshedSpelling(MOUNT_ATTRS[n], prior[n], priorCanon[n], live[n]);
}

/** The tune settings that differ between two states (all non-default ones for a new mount). */
export function tuneChanges(prior: ObjectValue | null, planned: ObjectValue): AuthMountTune {
  const before = prior ? mountCanonical(prior) : mountFields('cloud', {});
  // The shared decision's writes (objects/decide.ts), those sys/auth/<path>/tune takes.
  const tunable: readonly string[] = ['description', ...MOUNT_TUNE_FIELDS];
  const changes = decideMount(mountCanonical(planned), before)?.changes ?? [];
  return Object.fromEntries(changes.filter((c) => tunable.includes(c.field)).map((c) => [c.field, c.after])) as AuthMountTune;
}
