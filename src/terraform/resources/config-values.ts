// The `config` block of keyward_cloud_auth_backend (auth/<mount>/config): schema, validation, and
// plan / refresh / apply-body rules over the reconciler's canonical config (desiredConfigFields,
// liveConfigFields, configBody). The credentials are a secret field (see secrets.ts).

import { decideConfig } from '../../reconcile/objects/decide';
import type { MountMove } from '../../reconcile/objects/mount-move';
import { desiredConfigFields, liveConfigFields } from '../../reconcile/canonical';
import type { Json } from '../../reconcile/model';
import { configBody } from '../../reconcile/write-bodies';
import { fieldProblemsOf, type FieldProblem } from '../../schema/field-problems';
import { cloudConfigSchema } from '../../schema/manifest';
import type { AttributePath, Diagnostic, ObjectValue } from '../plugin/contract';
import type { KeywardProviderContext } from './context';
import { CONFIG_SECRET as SECRET } from '../../schema/cloud-config-fields';
import { CONFIG_ATTRS, CONFIG_NAMES as NAMES } from './config-attributes';
import { secretAttributeNames } from './secret-attributes';
import { planSecret } from './secrets';
import { credentialsToWrite } from './config-credentials';
import type { CredentialsDecision } from '../../reconcile/objects/auth-config';
import { problemDiagnostics } from './field-diagnostics';
import { errorAt, hasUnknown, pathOf, pick, plannedSpelling, refreshedSpelling, showPath } from './values';

export function emptyConfig(): ObjectValue {
  return Object.fromEntries([...secretAttributeNames(SECRET), ...NAMES].map((n) => [n, null]));
}

const canonical = (c: ObjectValue): Record<string, Json> => desiredConfigFields('config', pick(c, NAMES));
/** The config attributes' canonical fields (the reconciler's). */
export const configCanonical = canonical;

/**
 * One diagnostic per failing value, all at once, each on its attribute (config.iam_alias …): the
 * manifest's schema, then the server's rules over the fields the schema accepted. Values not known
 * yet (known after apply) are skipped here and checked at plan.
 */
export function validateConfig(base: AttributePath, c: ObjectValue): Diagnostic[] {
  const known = pick(
    c,
    NAMES.filter((n) => !hasUnknown(c[n])),
  );
  const out: Diagnostic[] = [];
  const reported = new Set<string>();
  const r = cloudConfigSchema.safeParse(known);
  if (!r.success) {
    for (const i of r.error.issues) {
      const field = i.code === 'unrecognized_keys' ? i.keys[0] : typeof i.path[0] === 'string' ? i.path[0] : undefined;
      if (field === undefined || reported.has(field)) continue;
      reported.add(field);
      const path = pathOf(base, i.path.length > 0 ? i.path : [field]);
      out.push(
        errorAt(
          path,
          `Invalid ${showPath(path)}: ${i.message}`,
          c[field] === null || c[field] === undefined ? undefined : `Given: ${showPath([...base, field])} = ${JSON.stringify(c[field])}.`,
        ),
      );
    }
  }
  const rest = Object.fromEntries(Object.entries(known).filter(([k]) => !reported.has(k)));
  try {
    desiredConfigFields('config', rest);
  } catch (e) {
    out.push(...problemDiagnostics(base, fieldProblemsOf(e) ?? singleFieldProblems(rest, e), { values: c, reported }));
  }
  return out;
}

/**
 * The config's write rules throw their first problem without its field. Every config field is valid
 * alone (an empty config is), so a field whose value fails alone is at fault; if none does, the
 * rule is between fields and the diagnostic goes on the block.
 */
function singleFieldProblems(rest: Record<string, unknown>, e: unknown): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const [field, v] of Object.entries(rest)) {
    try {
      desiredConfigFields('config', { [field]: v });
    } catch (one) {
      problems.push({ field, message: stripWhere(one) });
    }
  }
  return problems.length > 0 ? problems : [{ field: '', message: stripWhere(e) }];
}

const stripWhere = (e: unknown): string => (e instanceof Error ? e.message.replace(/^config: /, '') : String(e));

/** The secret's plan-time problems (an unset `credentials_env` variable …), reported beside validation's. */
export function configSecretDiagnostics(ctx: KeywardProviderContext, base: AttributePath, config: ObjectValue): Diagnostic[] {
  return planSecret(ctx, base, SECRET, config, { ...config });
}

export function planConfig(ctx: KeywardProviderContext, base: AttributePath, config: ObjectValue, prior: ObjectValue | null): { planned: ObjectValue; diagnostics: Diagnostic[] } {
  const planned: ObjectValue = { ...emptyConfig(), ...config };
  const diagnostics = planSecret(ctx, base, SECRET, config, planned, prior);
  if (!NAMES.some((n) => hasUnknown(config[n]))) {
    const c = canonical(config);
    const p = prior ? canonical(prior) : undefined;
    for (const n of NAMES) planned[n] = plannedSpelling(CONFIG_ATTRS[n], config[n], prior ? prior[n] : undefined, c[n], p?.[n]);
  }
  return { planned, diagnostics };
}

/** State from a live read (secret attributes carried over: the server never returns the value). */
export function refreshConfig(prior: ObjectValue | null, data: Record<string, unknown>): ObjectValue {
  const live = liveConfigFields(data);
  const priorCanon = prior ? canonical(prior) : undefined;
  const out: ObjectValue = { ...emptyConfig(), ...(prior ?? {}) };
  for (const n of NAMES) out[n] = refreshedSpelling(CONFIG_ATTRS[n], prior ? prior[n] : undefined, priorCanon?.[n], live[n]);
  return out;
}

/** The config write for prior → planned, or undefined when nothing changes (the credentials as decided). */
export function configWrite(
  ctx: KeywardProviderContext,
  base: AttributePath,
  config: ObjectValue,
  prior: ObjectValue | null,
  planned: ObjectValue,
  credentials: CredentialsDecision,
  move?: MountMove,
): Record<string, unknown> | undefined {
  const after = canonical(planned);
  // The shared decision's writes: the changed fields (all of a new config's: configBody leaves out
  // the defaults, which have no `before`), and after a move the rotation fields again (Vault
  // Enterprise de-registered the moved mount's root rotation; objects/decide.ts).
  const changes = decideConfig(after, prior ? canonical(prior) : undefined, { move })?.changes ?? [];
  const body = configBody(undefined, changes, { salt: '', env: {} }, { fields: after, declared: NAMES.filter((n) => config[n] !== null && config[n] !== undefined) });
  const secret = credentialsToWrite(ctx, base, config, planned, credentials);
  if (secret !== undefined) body.credentials = secret;
  return Object.keys(body).length === 0 ? undefined : body;
}
