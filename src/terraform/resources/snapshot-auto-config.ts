// keyward_snapshot_auto_config: one automated snapshot config (sys/storage/raft/snapshot-auto/
// config/<name>). Canonical comparison from the reconciler (desiredSnapshotFields,
// liveSnapshotFields); `name` and `storage_type` force a replace; secrets as in secrets.ts.

import { decideSnapshotConfig, replaceFields } from '../../reconcile/objects/decide';
import { EditionError } from '../../client/dialect/edition';
import { desiredSnapshotFields, liveSnapshotFields } from '../../reconcile/canonical';
import { sameValue, stableJson, type Json } from '../../reconcile/model';
import { undeclaredSecretWarning } from '../../reconcile/objects/snapshot-config';
import { SECRETS_HELD } from '../../client/dialect/translator';
import { fieldProblemsOf } from '../../schema/field-problems';
import { snapshotConfigSchema } from '../../schema/manifest';
import { isStorageType, snapshotConfigNameProblem } from '../../schema/snapshot-config';
import { DiagnosticsError, type AttributePath, type Diagnostic, type ObjectValue, type ResourceHandler } from '../plugin/contract';
import { clientOf, type KeywardProviderContext } from './context';
import { mapLimit } from '../../reconcile/pool';
import { problemDiagnostics } from './field-diagnostics';
import { secretAttributeNames } from './secret-attributes';
import { planSecret, secretChanged, secretForCompleteWrite } from './secrets';
import { completeSnapshotBody } from '../../reconcile/write-bodies';
import { snapshotServerProblems } from '../../reconcile/server-rules';
import { retainedWarnings } from './retained';
import { createBeforeDestroyNote, replacesHeld, retainedReplaceDetail, withHeld, type HeldObject } from './held-object';
import { SNAPSHOT_KIND as KIND, SNAPSHOT_PLAIN_NAMES as PLAIN_NAMES, SNAPSHOT_SECRETS as SECRETS, snapshotAutoConfigSchema as schema } from './snapshot-auto-config-schema';
import { bool, errorAt, hasUnknown, pathOf, pick, plannedSpelling, refreshedSpelling } from './values';

const empty = (): ObjectValue => Object.fromEntries(Object.keys(schema.attributes).map((n) => [n, null]));
const canonical = (o: ObjectValue): Record<string, Json> => desiredSnapshotFields(`snapshot/${String(o.name)}`, pick(o, PLAIN_NAMES));

/** The attribute a snapshot field's value is in (a secret's: the one of its attributes set). */
function attributeOf(config: ObjectValue, field: string): string | undefined {
  if (SECRETS.includes(field)) return [`${field}_wo`, `${field}_env`, `${field}_wo_version`].find((a) => config[a] !== null) ?? `${field}_env`;
  return field in schema.attributes ? field : undefined;
}

/**
 * One diagnostic per failing value, all at once, each on its attribute: the manifest's schema,
 * then the server's write rules (FieldProblem per field) over the values the schema accepted.
 * Values known only after apply are skipped here and checked at plan.
 */
function validate(config: ObjectValue): Diagnostic[] {
  const out: Diagnostic[] = [];
  const reported = new Set<string>();
  if (typeof config.name === 'string') {
    const p = snapshotConfigNameProblem(config.name);
    if (p) out.push(errorAt(['name'], `Invalid ${p}`, `Given: name = ${JSON.stringify(config.name)}.`));
  }
  const type = config.storage_type;
  if (hasUnknown(type)) return out;
  for (const s of SECRETS) {
    const set = secretAttributeNames(s).find((a) => config[a] !== null && config[a] !== undefined && !a.endsWith('_fingerprint'));
    if (set && isStorageType(type) && !s.startsWith(type.replace('-store', ''))) {
      out.push(errorAt([set], `Invalid ${set}: ${s} does not apply to storage_type ${type}`, `Given: storage_type = ${JSON.stringify(type)}.`));
    }
  }
  const known = pick(
    config,
    PLAIN_NAMES.filter((n) => !hasUnknown(config[n])),
  );
  const r = snapshotConfigSchema.safeParse({ name: typeof config.name === 'string' ? config.name : 'unknown', ...known });
  if (!r.success) {
    for (const i of r.error.issues) {
      const fields = i.code === 'unrecognized_keys' ? i.keys : [typeof i.path[0] === 'string' ? i.path[0] : 'storage_type'];
      for (const field of fields) {
        // A value known only after apply is absent from `known`, not missing: plan checks it.
        if (field === 'name' || reported.has(field) || hasUnknown(config[field])) continue;
        reported.add(field);
        const value = config[field];
        const given = value === null || value === undefined ? undefined : `Given: ${field} = ${JSON.stringify(value)}.`;
        out.push(errorAt(pathOf([], [field]), `Invalid ${field}: ${i.code === 'unrecognized_keys' ? `does not apply to storage_type ${String(type)}` : i.message}`, given));
      }
    }
    if (reported.has('storage_type')) return out;
  }
  try {
    desiredSnapshotFields(`snapshot/${String(config.name)}`, Object.fromEntries(Object.entries(known).filter(([k]) => !reported.has(k))));
  } catch (e) {
    const problems = fieldProblemsOf(e) ?? [{ field: '', message: e instanceof Error ? e.message : String(e) }];
    out.push(...problemDiagnostics([], problems, { values: config, reported, attributeOf: (f) => attributeOf(config, f) }));
  }
  return out;
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * The attributes whose change replaces the config: its name (another config), and the replace
 * reason of the shared decision (objects/decide.ts over the field tables). A value not known yet
 * may change a replace-forcing field, so it counts.
 */
function replacedBy(prior: ObjectValue, config: ObjectValue): string[] {
  const name = prior.name !== config.name ? ['name'] : [];
  if (PLAIN_NAMES.some((n) => hasUnknown(config[n]))) return [...name, ...replaceFields('snapshot-config').filter((f) => hasUnknown(config[f]) || prior[f] !== config[f])];
  return [...name, ...(decideSnapshotConfig(canonical(config), canonical(prior))?.replaceReason ?? [])];
}

/**
 * Creating a config the server already holds would overwrite it silently: refuse, and say how to
 * bring it under management instead. Terraform does not tell a provider the resource's address,
 * so the commands name it by placeholder; the diagnostic itself is shown under the address.
 * `replacing`: the create half of a replace of this same config (held-object.ts): at plan the
 * config is the one the destroy half deletes first, so nothing is checked; at apply (no private
 * data then) every create is checked: it must be gone.
 */
async function refuseExisting(ctx: KeywardProviderContext, name: string, atPlan: boolean, replacing: HeldObject | undefined): Promise<void> {
  const what = `snapshot config ${JSON.stringify(name)}`;
  if (atPlan && replacing?.retained)
    throw new DiagnosticsError([errorAt(['name'], `Snapshot config ${JSON.stringify(name)} cannot be replaced: retain_on_destroy keeps it`, retainedReplaceDetail(what))]);
  if (atPlan && replacing) return;
  let exists: boolean;
  try {
    exists = ctx.client !== undefined && (await ctx.client.snapshots.read(name)) !== undefined;
  } catch (e) {
    // A server without automated snapshots fails the plan, naming keyward snapshot-agent; other
    // failures to answer at plan are apply's to report, as a write failure.
    if (atPlan && !(e instanceof EditionError)) return;
    throw e;
  }
  if (!exists) return;
  throw new DiagnosticsError([
    errorAt(
      ['name'],
      `Snapshot config ${JSON.stringify(name)} already exists on the server`,
      `It is not in this configuration's state, and creating it would overwrite it. Import it to manage it: in a cdktf stack \`importFrom(${JSON.stringify(name)})\` on the SnapshotAutoConfig (\`keyward import --snapshots\` writes it); in HCL \`terraform import keyward_snapshot_auto_config.<name> ${name}\`, or an import block: import { to = keyward_snapshot_auto_config.<name>  id = ${JSON.stringify(name)} }. Or choose another name. ${createBeforeDestroyNote('config')}`,
    ),
  ]);
}

/**
 * Terraform applies resources in parallel: when autoload moves between two configs, the disable of
 * the other one may still be in flight. Vault takes autoload on one config at a time, so the enable
 * waits (bounded) for the other to give it up (objects/snapshot-config.ts: disable before enable).
 */
async function awaitAutoloadFree(ctx: KeywardProviderContext, name: string, timeoutMs = 15_000): Promise<void> {
  const client = clientOf(ctx);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const others = (await client.snapshots.list()).filter((n) => n !== name);
    const reads = await mapLimit(others, ctx.parallelism, async (n) => ({ n, data: await client.snapshots.read(n) }));
    const holder = reads.find((r) => r.data?.autoload_enabled === true)?.n;
    if (!holder) return;
    if (Date.now() > deadline) {
      throw new DiagnosticsError([
        errorAt(
          ['autoload_enabled'],
          `autoload is enabled on snapshot config ${JSON.stringify(holder)}`,
          'Vault allows autoload_enabled on one snapshot config at a time: disable it there (in the same apply or first).',
        ),
      ]);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A write is complete (Vault may replace): stored secrets the configuration does not declare go, and the plan says so. */
async function undeclaredHeld(ctx: KeywardProviderContext, name: string, config: ObjectValue): Promise<Diagnostic[]> {
  const data = ctx.client ? await ctx.client.snapshots.read(name) : undefined;
  const held = Array.isArray(data?.[SECRETS_HELD]) ? (data![SECRETS_HELD] as string[]) : [];
  return held
    .filter((s) => SECRETS.includes(s) && [`${s}_env`, `${s}_wo`, `${s}_wo_version`].every((a) => config[a] === null || config[a] === undefined))
    .map((s) => ({ severity: 'warning' as const, summary: `${s} is stored on the server but not declared`, detail: undeclaredSecretWarning(s), attribute: [`${s}_env`] }));
}

/** The server's own rules (the embedded engine's stricter ones) on a config about to be written, at plan. */
async function serverRuleDiagnostics(ctx: KeywardProviderContext, config: ObjectValue, prior: ObjectValue | null): Promise<Diagnostic[]> {
  if (!ctx.client || PLAIN_NAMES.some((n) => hasUnknown(config[n]))) return [];
  const after = canonical(config);
  if (prior && sameValue(after, canonical(prior))) return [];
  let dialect;
  try {
    dialect = await ctx.client.dialect();
  } catch {
    return []; // apply reports a server that cannot answer
  }
  return snapshotServerProblems(dialect, after).map(([field, m]) =>
    errorAt([field in schema.attributes ? field : 'storage_type'], `Invalid ${field}: ${m}`, `Given: ${field} = ${JSON.stringify(config[field])}.`),
  );
}

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
    if (!config) return { planned: null, diagnostics: retainedWarnings(`Snapshot config ${JSON.stringify(req.prior?.name)}`, 'configuration stays', req.prior) };
    const diagnostics = validate(config);
    if (diagnostics.length) {
      // Everything wrong in one plan: unset secret variables beside the invalid values.
      for (const s of SECRETS) diagnostics.push(...planSecret(ctx, [], s, config, { ...config }));
      throw new DiagnosticsError(diagnostics);
    }
    // A create, unless it is the create half of a replace of this resource's own config (held-object.ts).
    const replacing = req.prior === null && typeof config.name === 'string' ? replacesHeld(req.priorPrivate, config.name) : undefined;
    if (req.prior === null && typeof config.name === 'string') await refuseExisting(ctx, config.name, true, replacing);
    const replace: AttributePath[] = req.prior ? replacedBy(req.prior, config).map((a) => [a]) : [];
    const prior = replace.length ? null : req.prior;
    const planned: ObjectValue = { ...empty(), ...config };
    if (!PLAIN_NAMES.some((n) => hasUnknown(config[n]))) {
      const c = canonical(config);
      const p = prior ? canonical(prior) : undefined;
      for (const n of PLAIN_NAMES) planned[n] = plannedSpelling(KIND[n], config[n], prior ? prior[n] : undefined, c[n], p?.[n]);
    }
    for (const s of SECRETS) diagnostics.push(...planSecret(ctx, [], s, config, planned, prior));
    diagnostics.push(...(await serverRuleDiagnostics(ctx, config, prior)));
    if (diagnostics.some((d) => d.severity === 'error')) throw new DiagnosticsError(diagnostics);
    if (prior && stableJson(prior) !== stableJson(planned)) diagnostics.push(...(await undeclaredHeld(ctx, String(config.name), config)));
    // The config this resource holds, for the create half of a replace (planned with no prior).
    const plannedPrivate = req.prior ? withHeld(req.priorPrivate, String(req.prior.name), req.prior) : req.priorPrivate;
    return { planned, requiresReplace: replace, diagnostics, plannedPrivate };
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
    // The shared decision's writes (objects/decide.ts); the secrets are this resource's (secrets.ts).
    const changedFields = new Set(decideSnapshotConfig(after, before)?.changes.map((c) => c.field) ?? []);
    const secretsChanged = SECRETS.some((s) => secretChanged(s, prior, planned));
    const changed = changedFields.size > 0 || secretsChanged;
    // Written whole: Vault's docs do not say an update merges, so every declared secret goes too.
    const secrets: Record<string, string> = {};
    if (changed) {
      for (const s of SECRETS) {
        const v = secretForCompleteWrite(ctx, [], s, config, prior, planned);
        if (v !== undefined) secrets[s] = v;
      }
    }
    const body = completeSnapshotBody(
      after,
      changedFields,
      secrets,
      PLAIN_NAMES.filter((n) => config[n] !== null && config[n] !== undefined),
    );
    try {
      if (!prior) await refuseExisting(ctx, String(planned.name), false, undefined);
      if (changed && after.autoload_enabled === true && (!before || before.autoload_enabled !== true)) await awaitAutoloadFree(ctx, String(planned.name));
      const warnings = changed ? await client.snapshots.write(String(planned.name), body) : [];
      return {
        state: { ...planned },
        diagnostics: warnings.map((w) => ({ severity: 'warning' as const, summary: `snapshot config ${String(planned.name)}: the server warned`, detail: w })),
      };
    } catch (e) {
      if (e instanceof DiagnosticsError) return { state: prior, diagnostics: e.diagnostics };
      // The server's message names fields, never secret values.
      return { state: prior, diagnostics: [errorAt([], `Could not write snapshot config ${String(planned.name)}`, message(e))] };
    }
  },
  async import(_ctx, id) {
    const p = snapshotConfigNameProblem(id);
    if (p) throw new DiagnosticsError([{ severity: 'error', summary: `Cannot import: ${p}` }]);
    return { ...empty(), name: id };
  },
};
