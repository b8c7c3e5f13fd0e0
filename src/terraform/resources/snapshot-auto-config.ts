// keyward_snapshot_auto_config: one automated snapshot config (sys/storage/raft/snapshot-auto/
// config/<name>). Canonical comparison from the reconciler (desiredSnapshotFields,
// liveSnapshotFields); `name` and `storage_type` force a replace; secrets as in secrets.ts.

import { desiredSnapshotFields, liveSnapshotFields } from '../../reconcile/canonical';
import { sameValue, type Json } from '../../reconcile/model';
import { snapshotConfigSchema } from '../../schema/manifest';
import { isStorageType, snapshotConfigNameProblem } from '../../schema/snapshot-config';
import { DiagnosticsError, type AttributePath, type Diagnostic, type ObjectValue, type ResourceHandler } from '../plugin/contract';
import { clientOf, type KeywardProviderContext } from './context';
import { secretAttributeNames } from './secret-attributes';
import { planSecret, secretForCompleteWrite, secretToSend } from './secrets';
import { completeSnapshotBody } from '../../reconcile/write-bodies';
import { SNAPSHOT_KIND as KIND, SNAPSHOT_PLAIN_NAMES as PLAIN_NAMES, SNAPSHOT_SECRETS as SECRETS, snapshotAutoConfigSchema as schema } from './snapshot-auto-config-schema';
import { bool, errorAt, hasUnknown, pathOf, pick, plannedSpelling, refreshedSpelling } from './values';

const empty = (): ObjectValue => Object.fromEntries(Object.keys(schema.attributes).map((n) => [n, null]));
const canonical = (o: ObjectValue): Record<string, Json> => desiredSnapshotFields(`snapshot/${String(o.name)}`, pick(o, PLAIN_NAMES));

function validate(config: ObjectValue): Diagnostic[] {
  const out: Diagnostic[] = [];
  if (typeof config.name === 'string') {
    const p = snapshotConfigNameProblem(config.name);
    if (p) out.push(errorAt(['name'], `Invalid ${p}`));
  }
  if (PLAIN_NAMES.some((n) => hasUnknown(config[n]))) return out;
  const type = config.storage_type;
  for (const s of SECRETS) {
    const set = secretAttributeNames(s).some((a) => config[a] !== null && !a.endsWith('_fingerprint'));
    if (set && isStorageType(type) && !s.startsWith(type.replace('-store', ''))) out.push(errorAt([`${s}_env`], `${s} does not apply to storage_type ${type}`));
  }
  const r = snapshotConfigSchema.safeParse({ name: config.name, ...pick(config, PLAIN_NAMES) });
  if (!r.success) {
    for (const i of r.error.issues) out.push(errorAt(i.path.length ? pathOf([], i.path) : ['storage_type'], `Invalid ${i.path.join('.') || 'storage_type'}: ${i.message}`));
    return out;
  }
  try {
    canonical(config);
  } catch (e) {
    out.push(errorAt([], `Invalid snapshot config: ${e instanceof Error ? e.message : String(e)}`));
  }
  return out;
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

export const snapshotAutoConfig: ResourceHandler<KeywardProviderContext> = {
  typeName: 'keyward_snapshot_auto_config',
  schema,
  validate,
  async read(ctx, state) {
    if (!ctx.client) return { state };
    const data = await ctx.client.snapshots.read(String(state.name));
    if (!data) return { state: null };
    const live = liveSnapshotFields(data);
    const type = String(live.storage_type);
    const sameType = state.storage_type === type;
    const priorCanon = sameType ? canonical(state) : undefined;
    const out: ObjectValue = { ...empty(), ...state, storage_type: type };
    for (const n of PLAIN_NAMES) {
      if (n === 'storage_type') continue;
      out[n] = n in live ? refreshedSpelling(KIND[n], sameType ? state[n] : undefined, priorCanon?.[n], live[n]) : null;
    }
    return { state: out };
  },
  async plan(ctx, req) {
    const config = req.config;
    if (!config) return { planned: null };
    const diagnostics = validate(config);
    if (diagnostics.length) throw new DiagnosticsError(diagnostics);
    const replace: AttributePath[] = req.prior ? (['name', 'storage_type'] as const).filter((a) => req.prior![a] !== config[a]).map((a) => [a]) : [];
    const prior = replace.length ? null : req.prior;
    const planned: ObjectValue = { ...empty(), ...config };
    if (!PLAIN_NAMES.some((n) => hasUnknown(config[n]))) {
      const c = canonical(config);
      const p = prior ? canonical(prior) : undefined;
      for (const n of PLAIN_NAMES) planned[n] = plannedSpelling(KIND[n], config[n], prior ? prior[n] : undefined, c[n], p?.[n]);
    }
    for (const s of SECRETS) diagnostics.push(...planSecret(ctx, [], s, config, planned));
    if (diagnostics.length) throw new DiagnosticsError(diagnostics);
    return { planned, requiresReplace: replace };
  },
  async apply(ctx, req) {
    const client = clientOf(ctx);
    const { prior, planned } = req;
    if (!planned) {
      try {
        if (prior && !bool(prior.retain_on_destroy)) await client.snapshots.delete(String(prior.name));
      } catch (e) {
        return { state: prior, diagnostics: [errorAt(['name'], `Could not delete snapshot config ${String(prior!.name)}`, message(e))] };
      }
      return { state: null };
    }
    const config = req.config ?? planned;
    const after = canonical(planned);
    const before = prior ? canonical(prior) : undefined;
    const changedFields = new Set(Object.keys(after).filter((n) => !before || !sameValue(after[n], before[n])));
    const secretsChanged = SECRETS.some((s) => secretToSend(ctx, [], s, config, prior, planned) !== undefined);
    const changed = changedFields.size > 0 || secretsChanged;
    // Written whole: Vault's docs do not say an update merges, so every declared secret goes too.
    const secrets: Record<string, string> = {};
    if (changed) {
      for (const s of SECRETS) {
        const v = secretForCompleteWrite(ctx, [], s, config, prior, planned);
        if (v !== undefined) secrets[s] = v;
      }
    }
    const body = completeSnapshotBody(after, changedFields, secrets);
    try {
      if (changed) await client.snapshots.write(String(planned.name), body);
    } catch (e) {
      // The server's message names fields, never secret values.
      return { state: prior, diagnostics: [errorAt([], `Could not write snapshot config ${String(planned.name)}`, message(e))] };
    }
    return { state: { ...planned } };
  },
  async import(_ctx, id) {
    const p = snapshotConfigNameProblem(id);
    if (p) throw new DiagnosticsError([{ severity: 'error', summary: `Cannot import: ${p}` }]);
    return { ...empty(), name: id };
  },
};
