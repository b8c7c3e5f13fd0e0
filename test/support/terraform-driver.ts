// Drives a keyward resource through the plugin contract as Terraform core would, without gRPC:
// configs padded with nulls, the proposed new state (config merged with prior computed values),
// Terraform's plan validity rules (a non-computed attribute plans its config value or its prior
// one), refresh → plan → apply, and the list of changed attribute paths a plan would print.

import { isDeepStrictEqual } from 'node:util';
import { blockMembers } from '../../src/terraform/plugin/block-members';
import {
  DiagnosticsError,
  UNKNOWN,
  type AttributeSchema,
  type Diagnostic,
  type ObjectValue,
  type PathStep,
  type BlockSchema,
  type ProviderDefinition,
  type ResourceHandler,
  type Value,
} from '../../src/terraform/plugin/contract';
import type { HttpClient } from '../../src/client/http';

type Attrs = Record<string, AttributeSchema>;
const isObj = (v: Value | undefined): v is ObjectValue => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Names of the list, set and map blocks of a schema: Terraform never sends or accepts them null. */
const collectionBlocks = (schema: Pick<BlockSchema, 'blocks'>): Set<string> =>
  new Set(
    Object.entries(schema.blocks ?? {})
      .filter(([, b]) => b.nesting !== 'single')
      .map(([n]) => n),
  );

/** Attributes and blocks (as nested attributes) of a whole resource or provider schema. */
export const schemaMembers = (schema: Pick<BlockSchema, 'attributes' | 'blocks'>): Attrs => blockMembers(schema.attributes, schema.blocks);

/**
 * A config as Terraform sends it: every attribute present, null when not written; a list, set or
 * map block not written is empty (`blocks`: their names).
 */
export function padConfig(attrs: Attrs, partial: Record<string, unknown>, blocks: Set<string> = new Set()): ObjectValue {
  const out: ObjectValue = {};
  for (const [name, a] of Object.entries(attrs)) {
    const v = partial[name] as Value | undefined;
    if ((v === undefined || v === null) && blocks.has(name)) out[name] = a.nested?.nesting === 'map' ? {} : [];
    else if (v === undefined || v === null) out[name] = null;
    else if (a.nested?.nesting === 'single') out[name] = padConfig(a.nested.attributes, v as Record<string, unknown>);
    else if (a.nested?.nesting === 'map')
      out[name] = Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, padConfig(a.nested!.attributes, x as Record<string, unknown>)]));
    else out[name] = v;
  }
  return out;
}

/** Terraform's ProposedNewState: config values, with prior values for unset computed attributes. */
export function proposedNew(attrs: Attrs, prior: ObjectValue | null, config: ObjectValue): ObjectValue {
  const out: ObjectValue = {};
  for (const [name, a] of Object.entries(attrs)) {
    const c = config[name];
    const p = prior ? prior[name] : null;
    if (a.writeOnly) out[name] = null;
    else if (a.nested && c !== null && c !== UNKNOWN) {
      if (a.nested.nesting === 'single') out[name] = proposedNew(a.nested.attributes, isObj(p) ? p : null, c as ObjectValue);
      else
        out[name] = Object.fromEntries(
          Object.entries(c as ObjectValue).map(([k, x]) => [k, proposedNew(a.nested!.attributes, isObj(p) && isObj(p[k]) ? (p[k] as ObjectValue) : null, x as ObjectValue)]),
        );
    } else if (a.computed && c === null) out[name] = p ?? null;
    else out[name] = c;
  }
  return out;
}

/** Terraform core's check of a planned value (objchange.AssertPlanValid, the parts keyward can break). */
export function assertPlanValid(attrs: Attrs, prior: ObjectValue | null, config: ObjectValue, planned: ObjectValue, path: PathStep[] = [], blocks: Set<string> = new Set()): void {
  for (const [name, a] of Object.entries(attrs)) {
    const c = config[name];
    const p = prior ? prior[name] : null;
    const v = planned[name];
    const at = [...path, name].map((s) => (typeof s === 'string' ? s : JSON.stringify(s))).join('.');
    if (blocks.has(name) && (v === null || v === undefined)) throw new Error(`${at}: a list, set or map block must not plan null`);
    if (a.writeOnly) {
      if (v !== null) throw new Error(`${at}: a write-only attribute must plan null`);
      continue;
    }
    if (a.nested && isObj(c) && isObj(v)) {
      if (a.nested.nesting === 'single') assertPlanValid(a.nested.attributes, isObj(p) ? p : null, c, v, [...path, name]);
      else {
        if (!isDeepStrictEqual(Object.keys(c).sort(), Object.keys(v).sort())) throw new Error(`${at}: planned map keys differ from config`);
        for (const k of Object.keys(c))
          assertPlanValid(a.nested.attributes, isObj(p) && isObj(p[k]) ? (p[k] as ObjectValue) : null, c[k] as ObjectValue, v[k] as ObjectValue, [...path, name, { key: k }]);
      }
      continue;
    }
    if (a.computed && !a.optional) continue;
    if (isDeepStrictEqual(v, c)) continue;
    if (p !== null && c !== null && isDeepStrictEqual(v, p)) continue;
    if (a.computed && c === null) continue;
    throw new Error(`${at}: planned ${JSON.stringify(v)} is neither the config ${JSON.stringify(c)} nor the prior ${JSON.stringify(p)}`);
  }
}

/** Attribute paths whose planned value differs from the prior (what `terraform plan` would show). */
export function changedPaths(prior: Value, planned: Value, path = ''): string[] {
  if (isDeepStrictEqual(prior, planned)) return [];
  if (isObj(prior) && isObj(planned)) {
    const keys = new Set([...Object.keys(prior), ...Object.keys(planned)]);
    return [...keys].flatMap((k) =>
      changedPaths(prior[k] ?? null, planned[k] ?? null, path === '' ? k : /^[a-z_]+$/.test(k) && !path.endsWith('roles') ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`),
    );
  }
  if (Array.isArray(prior) && Array.isArray(planned) && isDeepStrictEqual([...prior].map(String).sort(), [...planned].map(String).sort())) return [];
  return [path];
}

export interface PlanOutcome {
  planned: ObjectValue | null;
  changes: string[];
  requiresReplace: string[];
  diagnostics: Diagnostic[];
  plannedPrivate?: Uint8Array;
}

export class TerraformDriver<P> {
  constructor(
    readonly ctx: P,
    readonly handler: ResourceHandler<P>,
  ) {}

  static async configure<P>(provider: ProviderDefinition<P>, typeName: string, config: Record<string, unknown>): Promise<TerraformDriver<P>> {
    const ctx = await provider.configure(padConfig(schemaMembers(provider.schema), config, collectionBlocks(provider.schema)));
    const handler = provider.resources.find((r) => r.typeName === typeName);
    if (!handler) throw new Error(`no resource ${typeName}`);
    return new TerraformDriver(ctx, handler);
  }

  config(partial: Record<string, unknown>): ObjectValue {
    return padConfig(schemaMembers(this.handler.schema), partial, collectionBlocks(this.handler.schema));
  }

  async read(state: ObjectValue): Promise<ObjectValue | null> {
    return (await this.handler.read(this.ctx, state)).state;
  }

  /** ValidateResourceConfig then PlanResourceChange; diagnostics instead of throws. */
  async plan(prior: ObjectValue | null, config: ObjectValue | null, priorPrivate?: Uint8Array): Promise<PlanOutcome> {
    const attrs = schemaMembers(this.handler.schema);
    try {
      const invalid = config ? (this.handler.validate?.(config) ?? []) : [];
      if (invalid.some((d) => d.severity === 'error')) return { planned: null, changes: [], requiresReplace: [], diagnostics: invalid };
      const r = await this.handler.plan(this.ctx, { prior, config, proposed: config ? proposedNew(attrs, prior, config) : null, priorPrivate });
      if (r.planned && config) assertPlanValid(attrs, prior, config, r.planned, [], collectionBlocks(this.handler.schema));
      return {
        planned: r.planned,
        changes: changedPaths(prior, r.planned),
        requiresReplace: (r.requiresReplace ?? []).map((p) => p.join('.')),
        diagnostics: r.diagnostics ?? [],
        plannedPrivate: r.plannedPrivate,
      };
    } catch (e) {
      if (e instanceof DiagnosticsError) return { planned: null, changes: [], requiresReplace: [], diagnostics: e.diagnostics };
      throw e;
    }
  }

  /** ApplyResourceChange; throws when the result is an error or differs from the known planned values. */
  async apply(prior: ObjectValue | null, planned: ObjectValue | null, config: ObjectValue | null): Promise<{ state: ObjectValue | null; diagnostics: Diagnostic[] }> {
    const r = await this.handler.apply(this.ctx, { prior, planned, config });
    const errors = (r.diagnostics ?? []).filter((d) => d.severity === 'error');
    if (errors.length) throw new DiagnosticsError(errors);
    if (planned && r.state) assertKnownEqual(planned, r.state, '');
    return { state: r.state, diagnostics: r.diagnostics ?? [] };
  }

  /** `terraform apply`: refresh, plan, apply when something changes (as `cdktf deploy`). */
  async deploy(state: ObjectValue | null, config: ObjectValue | null): Promise<{ state: ObjectValue | null; plan: PlanOutcome; diagnostics: Diagnostic[] }> {
    const prior = state ? await this.read(state) : null;
    const plan = await this.plan(prior, config);
    if (plan.diagnostics.some((d) => d.severity === 'error')) throw new DiagnosticsError(plan.diagnostics);
    if (plan.changes.length === 0 && prior !== null) return { state: prior, plan, diagnostics: [] };
    if (plan.requiresReplace.length && prior) {
      // As Terraform does: the create half is planned with no prior while the old object still
      // exists (with the first plan's private data), then the destroy runs, then the create.
      const fresh = await this.plan(null, config, plan.plannedPrivate);
      if (fresh.diagnostics.some((d) => d.severity === 'error')) throw new DiagnosticsError(fresh.diagnostics);
      await this.apply(prior, null, null);
      const r = await this.apply(null, fresh.planned, config);
      return { state: r.state, plan, diagnostics: r.diagnostics };
    }
    const r = await this.apply(prior, plan.planned, config);
    return { state: r.state, plan, diagnostics: r.diagnostics };
  }
}

function assertKnownEqual(planned: Value, state: Value, at: string): void {
  if (planned === UNKNOWN) {
    if (state === UNKNOWN) throw new Error(`${at}: still unknown after apply`);
    return;
  }
  if (isObj(planned) && isObj(state)) {
    for (const k of new Set([...Object.keys(planned), ...Object.keys(state)])) assertKnownEqual(planned[k] ?? null, state[k] ?? null, `${at}.${k}`);
    return;
  }
  if (!isDeepStrictEqual(planned, state)) throw new Error(`${at}: applied ${JSON.stringify(state)}, planned ${JSON.stringify(planned)}`);
}

/** Records `METHOD path` of every request the client sends from now on (the list is live). */
export function recordRequests(client: Pick<HttpClient, 'request'>): string[] {
  const sent: string[] = [];
  const original = client.request.bind(client);
  client.request = (method, path, body, opts) => {
    sent.push(`${method} ${path}`);
    return original(method, path, body, opts);
  };
  return sent;
}
