// What a planned change means, for a reviewer of a secrets server's auth and backups: who can newly log in, what
// they get, where the server's credentials go, what backups are lost, who is locked out. Computed once per object
// from its plan and the field tables' access effects (src/schema/access-effects.ts), by comparing values: the same
// field can broaden or narrow depending on what it held. A value not known at plan time is labelled for review,
// never taken as neutral. Every front end (the CLI's plan, `keyward show`, the PR plan) carries these labels.

import ipaddr from 'ipaddr.js';
import type { ServerDialect } from '../client/dialect/server-dialect';
import { RETAINED_REASON } from './objects/decide';
import { APPLY_REFUSES } from './objects/role';
import { CONFIG_ACCESS, MOUNT_ACCESS, ROLE_ACCESS, SNAPSHOT_ACCESS, type AccessEffect } from '../schema/access-effects';
import { MEANING_LABELS, stableJson, type Json, type Meaning, type MeaningLabel, type ObjectKind, type ObjectPlan, type Plan } from './model';

export { MEANING_LABELS, type Meaning, type MeaningLabel } from './model';

/** How a saved Terraform plan shows a value only known at apply. */
export const KNOWN_AFTER_APPLY = '(known after apply)';

export interface MeaningInput {
  plan: ObjectPlan;
  /** The object's fields before (live, or the record) and after (declared), canonical; absent where none. */
  before?: Record<string, Json>;
  after?: Record<string, Json>;
  dialect: ServerDialect;
}

const EFFECTS: Record<ObjectKind, Readonly<Record<string, AccessEffect>>> = {
  role: ROLE_ACCESS,
  'auth-config': CONFIG_ACCESS,
  'auth-mount': MOUNT_ACCESS,
  'snapshot-config': SNAPSHOT_ACCESS,
};

const isUnknown = (v: Json | undefined): boolean => v === KNOWN_AFTER_APPLY;
const asList = (v: Json | undefined): string[] => (Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : stableJson(x))) : []);
const asMapEntries = (v: Json | undefined): string[] =>
  v && typeof v === 'object' && !Array.isArray(v) ? Object.entries(v).map(([k, x]) => `${k}=${typeof x === 'string' ? x : stableJson(x)}`) : [];
const num = (v: Json | undefined): number => (typeof v === 'number' ? v : 0);
const show = (xs: string[]) => xs.map((x) => `\`${x}\``).join(', ');

/** The role's type (iam or vm), from the declaration or the server's record. */
const roleType = (i: MeaningInput): string | undefined => {
  const t = i.after?.type ?? i.before?.type;
  return typeof t === 'string' ? (t === 'gce' ? 'vm' : t) : undefined;
};

function where(i: MeaningInput): string {
  const a = i.plan.address;
  return a.kind === 'snapshot-config' ? `snapshot config \`${a.name}\`` : a.kind === 'role' ? `role \`${a.name}\` on \`auth/${a.mount}\`` : `\`auth/${a.mount}\``;
}

/** The meanings of `*` in a vm or iam role's bound service accounts, on this server. */
function wildcardMeanings(i: MeaningInput, added: string[]): Meaning[] {
  if (!added.includes('*')) return [];
  const field = 'bound_service_accounts';
  if (roleType(i) === 'vm' && i.dialect === 'vault') {
    return [
      {
        label: 'locks-out',
        field,
        explanation: `on Vault and OpenBao \`*\` on a vm role is a literal service account name: no VM matches it, so every VM that logs in through ${where(i)} is refused`,
      },
    ];
  }
  const projects = asList(i.after?.bound_projects);
  return [
    {
      label: 'broadens-access',
      field,
      explanation: `any service account ${projects.length ? `in ${show(projects)}` : 'in any project'} may log in through ${where(i)}`,
    },
  ];
}

/** Entries of a restriction (empty = any) compared: who can newly log in, who no longer can. */
function restriction(field: string, before: string[], after: string[], i: MeaningInput, noun: string): Meaning[] {
  const added = after.filter((x) => !before.includes(x));
  const removed = before.filter((x) => !after.includes(x));
  const out: Meaning[] = [];
  if (after.length === 0 && before.length > 0) {
    out.push({ label: 'broadens-access', field, explanation: `${field} emptied: any ${noun} now passes this check on ${where(i)} (was ${show(before)})` });
    return out;
  }
  if (before.length === 0 && after.length > 0) {
    if (field === 'bound_service_accounts' && after.includes('*')) {
      // Empty allowed any account already: `*` changes nothing, except on Vault's vm roles where it admits none.
      return wildcardMeanings(i, after).filter((m) => m.label === 'locks-out');
    }
    out.push({ label: 'narrows-access', field, explanation: `${field} set: only ${show(after)} now pass this check on ${where(i)} (was any ${noun})` });
    return out;
  }
  // `*` says more than "one more entry": any account (iam, and vm on the engine) or none at all (vm on Vault/OpenBao).
  const wildcard = field === 'bound_service_accounts' ? wildcardMeanings(i, added) : [];
  const named = wildcard.length ? added.filter((x) => x !== '*') : added;
  if (named.length) out.push({ label: 'broadens-access', field, explanation: `${show(named)} added to ${field}: they may now log in through ${where(i)}` });
  out.push(...wildcard);
  const anyAccount = wildcard.some((m) => m.label === 'broadens-access');
  if (removed.length && !anyAccount)
    out.push({ label: 'narrows-access', field, explanation: `${show(removed)} removed from ${field}: they can no longer log in through ${where(i)}` });
  return out;
}

function cidrMeanings(field: string, before: string[], after: string[], i: MeaningInput): Meaning[] {
  const parse = (c: string) => {
    try {
      return ipaddr.parseCIDR(c.includes('/') ? c : `${c}/${ipaddr.parse(c).kind() === 'ipv4' ? 32 : 128}`);
    } catch {
      return undefined;
    }
  };
  const covered = (c: string, by: string[]) => {
    const x = parse(c);
    return (
      !!x &&
      by.some((b) => {
        const y = parse(b);
        return !!y && y[0].kind() === x[0].kind() && x[1] >= y[1] && x[0].match(y);
      })
    );
  };
  if (after.length === 0 && before.length > 0)
    return [{ label: 'broadens-access', field, explanation: `${field} removed: tokens from ${where(i)} may be used from anywhere (were ${show(before)})` }];
  if (before.length === 0 && after.length > 0)
    return [{ label: 'narrows-access', field, explanation: `${field} set: tokens from ${where(i)} may be used only from ${show(after)}` }];
  const wider = after.filter((c) => !covered(c, before));
  const lost = before.filter((c) => !covered(c, after));
  const out: Meaning[] = [];
  if (wider.length) out.push({ label: 'broadens-access', field, explanation: `tokens from ${where(i)} may now be used from ${show(wider)}` });
  if (lost.length) out.push({ label: 'narrows-access', field, explanation: `tokens from ${where(i)} may no longer be used from ${show(lost)}` });
  return out;
}

/** A limit where more is broader, with what 0 means: compared as a rank (Infinity for unlimited or default). */
function limitMeanings(field: string, e: Extract<AccessEffect, { kind: 'limit' }>, b: number, a: number, i: MeaningInput): Meaning[] {
  const rank = (v: number) => (v !== 0 ? v : e.zero === 'unlimited' || e.zero === 'default' ? Infinity : e.zero === 'off' ? 0 : -1);
  const zeroSays = { unlimited: 'unlimited', default: 'the mount or system default', off: 'off', 'refuses-all': 'every login refused' }[e.zero];
  const say = (v: number) => (v === 0 ? `0 (${zeroSays})` : String(v));
  if (a === 0 && e.zero === 'refuses-all') return [{ label: 'locks-out', field, explanation: `${field} 0 refuses every login through ${where(i)}` }];
  const rb = rank(b);
  const ra = rank(a);
  if (ra > rb) return [{ label: 'broadens-access', field, explanation: `${field} ${say(b)} → ${say(a)}: tokens or logins through ${where(i)} last longer or allow more` }];
  if (ra < rb) return [{ label: 'narrows-access', field, explanation: `${field} ${say(b)} → ${say(a)}` }];
  return [];
}

function fieldMeanings(field: string, e: AccessEffect, b: Json | undefined, a: Json | undefined, i: MeaningInput): Meaning[] {
  switch (e.kind) {
    case 'bound-set':
      return restriction(field, asList(b), asList(a), i, field === 'bound_service_accounts' ? 'service account' : 'value');
    case 'bound-map':
      return restriction(field, asMapEntries(b), asMapEntries(a), i, 'label');
    case 'cidrs':
      return cidrMeanings(field, asList(b), asList(a), i);
    case 'grant-set': {
      const added = asList(a).filter((x) => !asList(b).includes(x));
      const removed = asList(b).filter((x) => !asList(a).includes(x));
      const out: Meaning[] = [];
      if (added.length) {
        const strong = added.filter((p) => p === 'root' || p === 'admin');
        out.push({
          label: 'broadens-access',
          field,
          explanation: `tokens from ${where(i)} get ${show(added)}${strong.length ? ` (${show(strong)}: broad by name — check what it grants)` : ''}`,
        });
      }
      if (removed.length) out.push({ label: 'narrows-access', field, explanation: `tokens from ${where(i)} no longer get ${show(removed)}` });
      return out;
    }
    case 'limit':
      return limitMeanings(field, e, num(b), num(a), i);
    case 'switch':
      if (a === b) return [];
      return a === e.broadensWhen
        ? [{ label: 'broadens-access', field, explanation: `${field} ${String(b)} → ${String(a)} on ${where(i)}` }]
        : [{ label: 'narrows-access', field, explanation: `${field} ${String(b)} → ${String(a)} on ${where(i)}` }];
    case 'credential-destination': {
      const bm = (b && typeof b === 'object' && !Array.isArray(b) ? b : {}) as Record<string, Json>;
      const am = (a && typeof a === 'object' && !Array.isArray(a) ? a : {}) as Record<string, Json>;
      const keys = [...new Set([...Object.keys(bm), ...Object.keys(am)])].filter((k) => stableJson(bm[k]) !== stableJson(am[k])).sort();
      return keys.map((k) => ({
        label: 'credential-destination' as const,
        field: `${field}.${k}`,
        explanation:
          am[k] === undefined || am[k] === ''
            ? `\`${k}\` calls go back to the provider's default host (were sent to ${String(bm[k])})`
            : `the server's access token${k === 'sts' || k === 'iamcredentials' ? ' and its signed identity tokens' : ''} will be sent to ${String(am[k])} for \`${k}\` calls`,
      }));
    }
    case 'backup-count':
      return num(a) < num(b) ? [{ label: 'reduces-backups', field, explanation: `${where(i)} keeps ${num(a)} snapshots instead of ${num(b)}: the oldest are deleted` }] : [];
    case 'backup-interval':
      return num(a) > num(b)
        ? [{ label: 'reduces-backups', field, explanation: `${where(i)} runs every ${num(a)} s instead of ${num(b)} s: more data lost between snapshots` }]
        : [];
    case 'backup-space':
      return num(a) < num(b) ? [{ label: 'reduces-backups', field, explanation: `${where(i)} may use ${num(a)} bytes instead of ${num(b)}` }] : [];
    case 'backup-location': {
      const out: Meaning[] = [
        { label: 'reduces-backups', field, explanation: `${where(i)} writes to a new location: the snapshots already taken stay behind, outside its retention` },
      ];
      if (e.sendsCredentials && a) out.push({ label: 'credential-destination', field, explanation: `the store credentials of ${where(i)} will be sent to ${String(a)}` });
      return out;
    }
    case 'review':
      return [{ label: 'needs-review', field, explanation: e.why }];
    case 'neutral':
      return [];
  }
}

/** The meanings of one object's planned change. */
export function meaningsOf(i: MeaningInput): Meaning[] {
  const out = changeMeanings(i);
  const r = i.plan.refused;
  if (!r) return out;
  // A change apply refuses (server-rules.ts withRoleServerRules): its label says so, whatever the values compared.
  const m = out.find((x) => x.label === r.label && x.field === r.field);
  if (!m) return [...out, { label: r.label, field: r.field, explanation: `${r.message} (${where(i)})` }];
  return out.map((x) => (x === m ? { ...x, explanation: `${x.explanation}; ${APPLY_REFUSES}` } : x));
}

function changeMeanings(i: MeaningInput): Meaning[] {
  const { plan } = i;
  const kind = plan.address.kind;
  const out: Meaning[] = [];
  switch (plan.action) {
    case 'no-op':
      return [];
    case 'create':
      if (kind === 'role') {
        out.push({ label: 'broadens-access', explanation: `a new role: the identities it binds may log in through \`auth/${plan.address.mount}\`` });
        out.push(...wildcardMeanings(i, asList(i.after?.bound_service_accounts)));
      }
      break;
    case 'delete':
      // Terraform forgets an object with retain_on_destroy: it stays on the server as it is.
      if (plan.reason === RETAINED_REASON) return [];
      if (kind === 'role') out.push({ label: 'narrows-access', explanation: `${where(i)} is deleted: its workloads can no longer log in` });
      if (kind === 'auth-mount') {
        out.push({ label: 'locks-out', explanation: `\`auth/${plan.address.mount}\` is disabled: no login through any of its roles` });
        out.push({ label: 'revokes-tokens', explanation: `every token and lease issued through \`auth/${plan.address.mount}\` is revoked` });
      }
      if (kind === 'snapshot-config') out.push({ label: 'reduces-backups', explanation: `${where(i)} is removed: no more snapshots from it` });
      return out;
    case 'replace':
      if (kind === 'role') out.push({ label: 'interrupts-logins', explanation: `${where(i)} is deleted and created again: logins through it fail in between` });
      if (kind === 'auth-mount') out.push({ label: 'revokes-tokens', explanation: `\`auth/${plan.address.mount}\` is replaced: every token issued through it is revoked` });
      break;
    case 'update':
      break;
  }
  if (plan.warnings?.some((w) => /revokes every token/.test(w)) && !out.some((m) => m.label === 'revokes-tokens')) {
    out.push({ label: 'revokes-tokens', explanation: `the move of \`auth/${plan.address.mount}\` revokes every token and lease issued through it` });
  }
  if (plan.action === 'create') return out;
  const effects = EFFECTS[kind];
  for (const c of plan.changes) {
    if (c.sensitive) continue;
    if (isUnknown(c.after) || isUnknown(c.before)) {
      out.push({ label: 'needs-review', field: c.field, explanation: `${c.field} is only known at apply: its effect cannot be judged from the plan` });
      continue;
    }
    const e = effects[c.field];
    if (!e) {
      out.push({ label: 'needs-review', field: c.field, explanation: `${c.field} has no known effect on access or backups` });
      continue;
    }
    out.push(...fieldMeanings(c.field, e, c.before, c.after, i));
  }
  return out;
}

/** The labels of a list of meanings, once each, in MEANING_LABELS order. */
export const labelsOf = (ms: readonly Meaning[]): MeaningLabel[] => MEANING_LABELS.filter((l) => ms.some((m) => m.label === l));

/**
 * The plan with each object's meanings attached: `fieldsOf` gives an object's full canonical fields before (live
 * or recorded) and after (declared), which the meanings need beyond the changed fields (a role's type, its projects).
 */
export function withMeanings(plan: Plan, fieldsOf: (id: string) => { before?: Record<string, Json>; after?: Record<string, Json> }, dialect: ServerDialect): Plan {
  const objects = plan.objects.map((o) => {
    const meanings = meaningsOf({ plan: o, dialect, ...fieldsOf(o.id) });
    return meanings.length ? { ...o, meanings } : o;
  });
  return { ...plan, objects };
}
