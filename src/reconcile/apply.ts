// Apply: execute a plan in order (mounts, then config, then roles, then mount deletes; snapshot
// configs alongside), with bounded parallelism, keeping the last-applied record current, then
// re-read and require an empty plan (write-then-verify). Updates never delete and recreate.

import { CONFIG_UNMANAGED_REASON } from './objects/decide';
import type { VaultClient } from '../client/vault-client';
import { fingerprintSecret } from '../schema/manifest';
import type { DesiredState } from './desired';
import { MOUNT_FIELDS, MOUNT_TUNE_FIELDS } from '../schema/auth-mount-fields';
import { hasChanges, sameValue, type ObjectPlan, type Plan } from './model';
import { makePlan } from './plan';
import { settleLimit } from './pool';
import { silentProgress, type Progress } from './progress';
import { recordedFrom, type LastApplied } from './record';
import { refuseRefusedChanges } from './server-rules';
import { configBody, configResetBody, snapshotBody, type SecretSource } from './write-bodies';
import { applyRoleDecision, roleWriteFor } from './objects/role';
import { autoloadFirst } from './objects/snapshot-config';

export interface ApplyOptions {
  parallelism?: number;
  env?: NodeJS.ProcessEnv;
  progress?: Progress;
  /** Persists the record; called before the first write and after the last. */
  saveRecord?: (rec: LastApplied) => void;
}

export interface ApplyResult {
  record: LastApplied;
  applied: Array<{ id: string; action: ObjectPlan['action'] }>;
  failed: Array<{ id: string; error: unknown }>;
  /** Warnings the server returned on writes (Vault's, translated), per object. */
  warnings: Array<{ id: string; warning: string }>;
  /** The plan made from a fresh read after applying (empty when converged). */
  verify?: Plan;
}

export class ApplyError extends Error {
  constructor(
    message: string,
    readonly result: ApplyResult,
  ) {
    super(message);
    this.name = 'ApplyError';
  }
}

const errText = (e: unknown) => (e instanceof Error ? e.message : String(e));

export async function applyPlan(client: VaultClient, desired: DesiredState, record: LastApplied, plan: Plan, opts: ApplyOptions = {}): Promise<ApplyResult> {
  // A change the server would accept but cannot honour is never written, whoever calls (the CLI refuses it earlier).
  refuseRefusedChanges(plan, client.address);
  const par = opts.parallelism ?? 16;
  const progress = opts.progress ?? silentProgress;
  const src: SecretSource = { salt: desired.fingerprintSalt, env: opts.env ?? process.env };
  const rec: LastApplied = { version: 1, objects: { ...record.objects } };
  const result: ApplyResult = { record: rec, applied: [], failed: [], warnings: [] };

  // Unchanged declared objects are recorded as they are; objects about to be written are recorded
  // as managed (empty) first, so an apply killed midway still owns what it may have created.
  for (const o of plan.objects) {
    const d = desired.objects.get(o.id);
    // A config removed from the stack is no longer managed (objects/decide.ts): out of the record.
    if (!d && o.reason === CONFIG_UNMANAGED_REASON) delete rec.objects[o.id];
    if (!d) continue;
    if (o.action === 'no-op') rec.objects[o.id] = recordedFrom(d, rec.objects[o.id]?.observed ?? {});
    else if (!rec.objects[o.id]) rec.objects[o.id] = { fields: {}, secrets: {}, observed: {} };
  }
  // Secrets must be readable (and match their fingerprints) before anything is written.
  for (const o of plan.objects) {
    const d = desired.objects.get(o.id);
    for (const c of o.changes) if (c.sensitive && c.after !== null && d?.secrets[c.field]) snapshotSecretCheck(d.id, c.field, d.secrets[c.field], src);
    // Snapshot configs are written whole (write-bodies.ts): every declared secret goes with any change.
    const whole = o.action === 'create' || o.action === 'replace' || (o.action === 'update' && o.address.kind === 'snapshot-config');
    if (whole && d) for (const [f, s] of Object.entries(d.secrets)) snapshotSecretCheck(d.id, f, s, src);
  }
  opts.saveRecord?.(rec);

  const todo = plan.objects.filter((o) => o.action !== 'no-op');
  progress.start(todo.length);
  const failedMounts = new Set<string>();
  // Mounts this apply disables and enables again: what they held is gone when their objects run.
  const replacedMounts = new Set(todo.flatMap((o) => (o.address.kind === 'auth-mount' && o.action === 'replace' ? [o.address.mount!] : [])));

  const run = async (ops: ObjectPlan[]) => {
    const runnable = ops.filter((o) => {
      if (o.address.mount && failedMounts.has(o.address.mount)) {
        result.failed.push({ id: o.id, error: new Error(`skipped: auth/${o.address.mount} failed`) });
        progress.done(o.id, o.action, new Error(`skipped: auth/${o.address.mount} failed`));
        return false;
      }
      return true;
    });
    // Outcomes are handled as each finishes, so progress and the record follow the work live.
    await settleLimit(runnable, par, async (o) => {
      try {
        for (const warning of await execute(client, desired, o, src, replacedMounts)) result.warnings.push({ id: o.id, warning });
      } catch (error) {
        result.failed.push({ id: o.id, error });
        if (o.address.mount && o.address.kind !== 'role') failedMounts.add(o.address.mount);
        progress.done(o.id, o.action, error);
        return;
      }
      result.applied.push({ id: o.id, action: o.action });
      const d = desired.objects.get(o.id);
      const from = movedFrom(o);
      // A moved mount's objects are recorded under the new path (below and as they apply).
      if (from) for (const id of Object.keys(rec.objects)) if (id === `auth/${from}` || id.startsWith(`auth/${from}/`)) delete rec.objects[id];
      if (o.action === 'delete') {
        delete rec.objects[o.id];
        if (o.address.kind === 'auth-mount') for (const id of Object.keys(rec.objects)) if (id.startsWith(`${o.id}/`)) delete rec.objects[id];
      } else if (d) rec.objects[o.id] = recordedFrom(d); // identifiers are re-read by the verify step
      progress.done(o.id, o.action);
    });
  };
  const kind = (k: ObjectPlan['address']['kind'], pred: (o: ObjectPlan) => boolean = () => true) => todo.filter((o) => o.address.kind === k && pred(o));

  const authChain = async () => {
    await run(kind('auth-mount', (o) => o.action !== 'delete'));
    await run(kind('auth-config'));
    await run(kind('role'));
    await run(kind('auth-mount', (o) => o.action === 'delete'));
  };
  // An autoload move: the config that gives it up is written before the one that takes it.
  const disablesAutoload = (o: ObjectPlan) =>
    autoloadFirst({ action: o.action, autoloadAfter: o.changes.find((c) => c.field === 'autoload_enabled')?.after as boolean | undefined });
  const snapshotChain = async () => {
    await run(kind('snapshot-config', disablesAutoload));
    await run(kind('snapshot-config', (o) => !disablesAutoload(o)));
  };
  await Promise.all([authChain(), snapshotChain()]);
  progress.finish();

  // Nothing written: the plan's read already showed convergence, no second read needed.
  if (result.failed.length === 0 && todo.length > 0) {
    // Verified without --resend: the secrets it asked for were just sent.
    const { plan: verify, live } = await makePlan(client, { ...desired, resend: undefined }, rec);
    result.verify = verify;
    for (const [id, l] of live.objects) if (rec.objects[id] && Object.keys(l.observed).length) rec.objects[id] = { ...rec.objects[id], observed: l.observed };
  }
  opts.saveRecord?.(rec);

  if (result.failed.length > 0) {
    const lines = result.failed.map((f) => `  ${f.id}: ${errText(f.error)}`);
    throw new ApplyError(`apply failed for ${result.failed.length} object(s); re-run to converge:\n${lines.join('\n')}`, result);
  }
  if (result.verify && hasChanges(result.verify)) {
    const lines = result.verify.objects
      .filter((o) => o.action !== 'no-op')
      .map(
        (o) =>
          `  ${o.id}: ${o.action === 'update' ? o.changes.map((c) => (c.sensitive ? `${c.field} (sensitive)` : `${c.field} (wanted ${JSON.stringify(c.after)}, server has ${JSON.stringify(c.before)})`)).join(', ') : `still needs ${o.action}`}`,
      );
    throw new ApplyError(`apply did not converge: the server did not take these fields:\n${lines.join('\n')}`, result);
  }
  return result;
}

function snapshotSecretCheck(id: string, field: string, s: { env: string; fingerprint: string }, src: SecretSource): void {
  const v = src.env[s.env];
  if (v === undefined) throw new Error(`${id}: field "${field}" needs environment variable ${s.env}, which is not set`);
  if (fingerprintSecret(src.salt, v) !== s.fingerprint) {
    throw new Error(
      `${id}: the value of ${s.env} does not match the fingerprint planned for field "${field}" (the secret changed after the manifest or plan was made; synthesize or plan again)`,
    );
  }
}

/** Runs one object's change; resolves to the server's warnings. */
async function execute(client: VaultClient, desired: DesiredState, o: ObjectPlan, src: SecretSource, replacedMounts: ReadonlySet<string>): Promise<string[]> {
  const d = desired.objects.get(o.id);
  const a = o.address;
  const warnings: string[] = [];
  const w = (more: string[] | void) => {
    if (more) warnings.push(...more);
  };
  switch (a.kind) {
    case 'auth-mount': {
      const mount = a.mount!;
      const from = movedFrom(o);
      if (o.action === 'delete' || o.action === 'replace') await client.sys.disableAuth(from ?? mount);
      if (o.action === 'create' || o.action === 'replace') {
        const f = d!.fields;
        const tune = Object.fromEntries(MOUNT_TUNE_FIELDS.filter((n) => !sameValue(f[n], MOUNT_DEFAULTS[n])).map((n) => [n, f[n] as number | string]));
        w(await client.sys.enableAuth(mount, { type: String(f.type), description: String(f.description ?? ''), local: f.local === true, config: tune }));
      } else if (o.action === 'update') {
        if (from) w(await client.sys.remount(from, mount));
        const tune = o.changes.filter((c) => c.field !== 'path');
        if (tune.length > 0) w(await client.sys.tune(mount, Object.fromEntries(tune.map((c) => [c.field, c.after as number | string]))));
      }
      return warnings;
    }
    case 'auth-config': {
      const api = client.cloud(a.mount!);
      w(await api.writeConfig(o.action === 'delete' ? configResetBody(o.changes) : configBody(d, o.changes, src)));
      return warnings;
    }
    case 'role': {
      // The planned action's write, as the provider's role resources send it (objects/role.ts).
      // A role replaced with its mount went when the mount was disabled: only its create half is left.
      const decision = roleWriteFor(
        o.action === 'replace' && replacedMounts.has(a.mount!) ? 'create' : o.action,
        d?.fields ?? {},
        o.changes.map((c) => c.field),
      );
      w(await applyRoleDecision(client.cloud(a.mount!), a.name!, decision));
      return warnings;
    }
    case 'snapshot-config': {
      if (o.action === 'delete' || o.action === 'replace') await client.snapshots.delete(a.name!);
      if (o.action === 'create' || o.action === 'replace') w(await client.snapshots.write(a.name!, snapshotBody(d!, 'all', src)));
      else if (o.action === 'update') w(await client.snapshots.write(a.name!, snapshotBody(d!, o.changes, src)));
      return warnings;
    }
  }
}

/** The earlier path of a mount this plan moves (its `path` change), if any. */
const movedFrom = (o: ObjectPlan): string | undefined => {
  const c = o.address.kind === 'auth-mount' ? o.changes.find((x) => x.field === 'path') : undefined;
  return typeof c?.before === 'string' ? c.before : undefined;
};

const MOUNT_DEFAULTS: Record<string, unknown> = Object.fromEntries(MOUNT_FIELDS.map((f) => [f.name, f.default]));
