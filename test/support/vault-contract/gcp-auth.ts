// The GCP auth method as Vault serves it (api-docs/auth/gcp.mdx; vault-plugin-auth-gcp): config
// and roles in Vault's names (gce_*, type "gce"), unknown fields refused with 422, role reads as
// plugin/path_role.go builds them (empty bound_* fields left out), host CIDRs read back without "/32" (Vault trims
// them: hashicorp/terraform-provider-vault#714, hashicorp/vault#18145).

import { randomUUID } from 'node:crypto';
import { asBool, asInt, asList, asSeconds, envelope, errors, noContent, rejectUnknown, wrapped, type Ctx, type Reply } from './http';
import { parseCron } from '../../../src/schema/cron';

const IAM_META = ['project_id', 'role', 'service_account_id', 'service_account_email'];
const GCE_META = ['instance_creation_timestamp', 'instance_id', 'instance_name', 'project_id', 'project_number', 'role', 'service_account_id', 'service_account_email', 'zone'];

export interface GcpConfig {
  credentials?: Record<string, string>;
  iam_alias: string;
  iam_metadata?: string[];
  gce_alias: string;
  gce_metadata?: string[];
  custom_endpoint: Record<string, string>;
  /** Workload identity federation (pluginidentityutil) and root rotation (automatedrotationutil). */
  service_account_email: string;
  identity_token_audience: string;
  identity_token_ttl: number;
  rotation_schedule: string;
  rotation_window: number;
  rotation_period: number;
  disable_automated_rotation: boolean;
}

export const newGcpConfig = (): GcpConfig => ({
  iam_alias: '',
  gce_alias: '',
  custom_endpoint: {},
  service_account_email: '',
  identity_token_audience: '',
  // pluginidentityutil's schema default (3600) is stored only when sent (GetOk): never sent reads 0.
  identity_token_ttl: 0,
  rotation_schedule: '',
  rotation_window: 0,
  rotation_period: 0,
  disable_automated_rotation: false,
});

const WIF_ROTATION = [
  'service_account_email',
  'identity_token_audience',
  'identity_token_ttl',
  'rotation_schedule',
  'rotation_window',
  'rotation_period',
  'disable_automated_rotation',
];
const CONFIG_FIELDS = ['credentials', 'iam_alias', 'iam_metadata', 'gce_alias', 'gce_metadata', 'custom_endpoint', 'google_certs_endpoint', ...WIF_ROTATION];
/**
 * The GCP plugin as real OpenBao runs it (measured, test/real/contract-openbao-mode.test.ts): the plugin knows the WIF
 * fields but OpenBao's plugin host has no rotation manager, so the rotation fields are unknown fields (422), and no
 * plugin identity tokens, so a complete WIF config is a 500 from the missing SystemView RPC.
 */
const ROTATION = ['rotation_schedule', 'rotation_window', 'rotation_period', 'disable_automated_rotation'];
const OPENBAO_CONFIG_FIELDS = CONFIG_FIELDS.filter((f) => !ROTATION.includes(f));
export const OPENBAO_NO_IDENTITY_TOKEN = 'rpc error: code = Unimplemented desc = unknown method GenerateIdentityToken for service pb.SystemView';

function metadata(ctx: Ctx, which: string, v: unknown, allowed: string[]): string[] | undefined | Reply {
  const items = asList(v).map((s) => s.toLowerCase());
  if (items.length === 1 && items[0] === 'default') return undefined;
  const bad = items.filter((i) => !allowed.includes(i));
  if (bad.length || items.includes('default')) {
    ctx.problem(`${which}: bad metadata ${items.join(',')}`);
    return errors(400, `failed to parse ${which === 'gce_metadata' ? 'gce' : 'iam'} metadata: "${items.join(', ')}" contains an unavailable field`);
  }
  return [...new Set(items)].sort();
}

/**
 * Keys the emulated Google no longer knows (one set per server): rotate-root
 * (path_config_rotate_root.go) creates a new key and deletes the old one at once, so a config
 * written with a deleted key fails every login that needs Google's APIs. Vault does not check the
 * key on write; the contract server records a problem.
 */
export type DeletedKeys = Set<string>;

/** A new key id, as when Vault creates a service-account key and deletes the old one. */
function rotateKey(cfg: GcpConfig, deletedKeys: DeletedKeys): string {
  const id = randomUUID().replace(/-/g, '').slice(0, 40);
  if (cfg.credentials?.private_key_id) deletedKeys.add(cfg.credentials.private_key_id);
  cfg.credentials = { ...cfg.credentials!, private_key_id: id };
  return id;
}

/** POST auth/<mount>/config/rotate-root (path_config_rotate_root.go): a new key, its id returned. */
export function rotateRoot(ctx: Ctx, cfg: GcpConfig, deletedKeys: DeletedKeys): Reply {
  if (ctx.method !== 'update') return errors(405, 'unsupported operation');
  if (!cfg.credentials) return errors(400, 'no credentials configured to rotate');
  return envelope({ private_key_id: rotateKey(cfg, deletedKeys) });
}

/** The test hook for "Vault rotated the key on its schedule". */
export const rotateOnSchedule = (cfg: GcpConfig, deletedKeys: DeletedKeys): string => rotateKey(cfg, deletedKeys);

export function gcpConfig(ctx: Ctx, cfg: GcpConfig, deletedKeys: DeletedKeys, flavor: 'vault' | 'openbao' = 'vault'): Reply {
  if (ctx.method === 'read') {
    const data: Record<string, unknown> = {
      iam_metadata: cfg.iam_metadata ?? IAM_META,
      gce_metadata: cfg.gce_metadata ?? GCE_META,
      identity_token_audience: cfg.identity_token_audience,
      identity_token_ttl: cfg.identity_token_ttl,
      // automatedrotationutil.PopulateAutomatedRotationData: durations as float seconds.
      rotation_schedule: cfg.rotation_schedule,
      rotation_window: cfg.rotation_window,
      rotation_period: cfg.rotation_period,
      disable_automated_rotation: cfg.disable_automated_rotation,
    };
    if (cfg.credentials) for (const k of ['client_email', 'client_id', 'private_key_id', 'project_id']) if (cfg.credentials[k]) data[k] = cfg.credentials[k];
    if (cfg.iam_alias) data.iam_alias = cfg.iam_alias;
    if (cfg.gce_alias) data.gce_alias = cfg.gce_alias;
    const ce = Object.fromEntries(Object.entries(cfg.custom_endpoint).filter(([, v]) => v !== ''));
    if (Object.keys(ce).length) data.custom_endpoint = ce;
    if (cfg.service_account_email !== '') data.service_account_email = cfg.service_account_email;
    if (flavor === 'openbao') for (const k of ROTATION) delete data[k];
    return envelope(data);
  }
  if (ctx.method !== 'update') return errors(405, 'unsupported operation');
  const bad = rejectUnknown(ctx, flavor === 'openbao' ? OPENBAO_CONFIG_FIELDS : CONFIG_FIELDS);
  if (bad) return bad;
  const b = ctx.body;
  // path_config.go reads the stored config and applies the fields sent (merge), then validates.
  const next: GcpConfig = { ...cfg, custom_endpoint: { ...cfg.custom_endpoint } };
  if (b.credentials !== undefined) {
    if (b.credentials === '') next.credentials = undefined;
    else {
      let parsed: Record<string, string>;
      try {
        parsed = JSON.parse(String(b.credentials)) as Record<string, string>;
      } catch {
        return errors(400, 'error reading google credentials from given JSON: invalid character');
      }
      if (!parsed.private_key_id) return errors(400, 'missing private key in credentials');
      if (deletedKeys.has(parsed.private_key_id))
        ctx.problem(`config: credentials with key ${parsed.private_key_id}, deleted at Google by a rotation, written back (every login needing Google's APIs fails)`);
      next.credentials = parsed;
    }
  }
  for (const k of ['iam_alias', 'gce_alias'] as const) {
    if (b[k] === undefined) continue;
    const v = String(b[k]);
    const ok = k === 'iam_alias' ? ['', 'role_id', 'unique_id'] : ['', 'role_id', 'instance_id'];
    if (!ok.includes(v)) ctx.problem(`${k}: value ${JSON.stringify(v)}`);
    next[k] = v;
  }
  for (const [k, allowed] of [
    ['iam_metadata', IAM_META],
    ['gce_metadata', GCE_META],
  ] as const) {
    if (b[k] === undefined) continue;
    const m = metadata(ctx, k, b[k], allowed);
    if (m && !Array.isArray(m)) return m as Reply;
    next[k] = m as string[] | undefined;
  }
  if (b.custom_endpoint !== undefined) {
    for (const [k, v] of Object.entries(b.custom_endpoint as Record<string, unknown>)) {
      if (!['api', 'iam', 'crm', 'compute'].includes(k)) return errors(400, `invalid custom endpoint type "${k}". Available types are: 'api', 'iam', 'crm', 'compute'`);
      next.custom_endpoint[k] = String(v);
    }
  }
  // pluginidentityutil.ParsePluginIdentityTokenFields
  if (b.identity_token_audience !== undefined) next.identity_token_audience = String(b.identity_token_audience);
  if (b.identity_token_ttl !== undefined) next.identity_token_ttl = asSeconds(b.identity_token_ttl);
  // automatedrotationutil.ParseAutomatedRotationFields: the checks look at the fields of this request.
  const has = (k: string) => b[k] !== undefined;
  const period = has('rotation_period') ? asSeconds(b.rotation_period) : 0;
  const window = has('rotation_window') ? asSeconds(b.rotation_window) : 0;
  if (has('rotation_schedule')) {
    if (period !== 0 && String(b.rotation_schedule) !== '') {
      return errors(400, 'mutually exclusive fields rotation_schedule and rotation_period were both specified; only one of them can be provided');
    }
    next.rotation_schedule = String(b.rotation_schedule);
    if (next.rotation_schedule !== '') {
      // Vault's own parser rules (robfig/cron, no descriptors), which src/schema/cron.ts follows.
      try {
        parseCron(next.rotation_schedule);
      } catch (e) {
        return errors(400, `failed to parse provided rotation_schedule: ${(e as Error).message}`);
      }
    }
  }
  if (has('rotation_window')) {
    if (period !== 0 && window !== 0) return errors(400, 'rotation_window does not apply to period');
    next.rotation_window = window;
  }
  if (has('rotation_period')) next.rotation_period = period;
  if (window !== 0 && !has('rotation_schedule')) return errors(400, 'cannot use rotation_window without rotation_schedule');
  if (has('disable_automated_rotation')) next.disable_automated_rotation = asBool(b.disable_automated_rotation);
  if (has('service_account_email')) next.service_account_email = String(b.service_account_email);
  if (next.identity_token_audience !== '' && next.credentials) return errors(400, "only one of 'credentials' or 'identity_token_audience' can be set");
  if (next.identity_token_audience !== '' && next.service_account_email === '') {
    // Real OpenBao answers this one (a Go error of pluginidentityutil) in the multierror text (measured); the Vault mode
    // keeps the bare text its tests were written against (Vault Enterprise cannot run here to settle it).
    const text = "missing required 'service_account_email' when 'identity_token_audience' is set";
    return flavor === 'openbao' ? wrapped(400, text) : errors(400, text);
  }
  if (flavor === 'openbao' && next.identity_token_audience !== '') {
    // keyward's plan refuses this toward OpenBao (objects/auth-config.ts): a write that gets here is a problem.
    ctx.problem(`${ctx.path}: identity_token_audience on OpenBao`);
    return wrapped(500, OPENBAO_NO_IDENTITY_TOKEN);
  }
  Object.assign(cfg, next);
  return noContent;
}

// ---- roles -------------------------------------------------------------------------------------

const TOKEN_FIELDS = [
  'token_policies',
  'token_ttl',
  'token_max_ttl',
  'token_explicit_max_ttl',
  'token_period',
  'token_no_default_policy',
  'token_num_uses',
  'token_type',
  'token_bound_cidrs',
];
const COMMON = [
  'name',
  'type',
  'bound_service_accounts',
  'bound_projects',
  'add_group_aliases',
  ...TOKEN_FIELDS,
  'policies',
  'ttl',
  'max_ttl',
  'period',
  'project_id',
  'service_accounts',
];
const IAM_ONLY = ['max_jwt_exp', 'allow_gce_inference'];
const GCE_ONLY = ['bound_zones', 'bound_regions', 'bound_instance_groups', 'bound_labels', 'bound_zone', 'bound_region', 'bound_instance_group'];

export type Role = Record<string, unknown> & { type: 'iam' | 'gce' };

/** Vault stores a host CIDR "/32" (or "/128") as the bare address. */
const trimHost = (c: string) => (c.includes(':') ? c.replace(/\/128$/, '') : c.replace(/\/32$/, ''));

function newRole(type: 'iam' | 'gce'): Role {
  const r: Role = {
    type,
    role_id: randomUUID(),
    bound_service_accounts: [],
    bound_projects: [],
    add_group_aliases: false,
    token_policies: [],
    token_ttl: 0,
    token_max_ttl: 0,
    token_explicit_max_ttl: 0,
    token_period: 0,
    token_no_default_policy: false,
    token_num_uses: 0,
    token_type: 'default',
    token_bound_cidrs: [],
  };
  if (type === 'iam') Object.assign(r, { max_jwt_exp: 900, allow_gce_inference: true });
  else Object.assign(r, { bound_zones: [], bound_regions: [], bound_instance_groups: [], bound_labels: {} });
  return r;
}

export function writeRole(ctx: Ctx, roles: Map<string, Role>, name: string): Reply {
  const b = ctx.body;
  const existing = roles.get(name);
  const type = (b.type ?? existing?.type) as string | undefined;
  if (type !== 'iam' && type !== 'gce') {
    ctx.problem(`role ${name}: type ${JSON.stringify(type)}`);
    return errors(400, `role type ${JSON.stringify(type)} is invalid`);
  }
  if (existing && b.type !== undefined && b.type !== existing.type) return errors(400, `role type cannot be changed`);
  const bad = rejectUnknown(ctx, [...COMMON, ...(type === 'iam' ? IAM_ONLY : GCE_ONLY)]);
  if (bad) return bad;
  const r = existing ?? newRole(type);
  const set = (k: string, v: unknown) => {
    if (v !== undefined) r[k] = v;
  };
  set('bound_service_accounts', b.bound_service_accounts !== undefined ? asList(b.bound_service_accounts) : undefined);
  set('bound_projects', b.bound_projects !== undefined ? asList(b.bound_projects) : undefined);
  set('add_group_aliases', b.add_group_aliases !== undefined ? asBool(b.add_group_aliases) : undefined);
  set('token_policies', b.token_policies !== undefined ? asList(b.token_policies) : undefined);
  for (const k of ['token_ttl', 'token_max_ttl', 'token_explicit_max_ttl', 'token_period', 'max_jwt_exp']) set(k, b[k] !== undefined ? asSeconds(b[k]) : undefined);
  set('token_no_default_policy', b.token_no_default_policy !== undefined ? asBool(b.token_no_default_policy) : undefined);
  set('token_num_uses', b.token_num_uses !== undefined ? asInt(b.token_num_uses) : undefined);
  set('token_type', b.token_type !== undefined ? String(b.token_type) : undefined);
  set('token_bound_cidrs', b.token_bound_cidrs !== undefined ? asList(b.token_bound_cidrs).map(trimHost) : undefined);
  set('allow_gce_inference', b.allow_gce_inference !== undefined ? asBool(b.allow_gce_inference) : undefined);
  for (const k of ['bound_zones', 'bound_regions', 'bound_instance_groups']) set(k, b[k] !== undefined ? asList(b[k]) : undefined);
  if (b.bound_labels !== undefined) {
    r.bound_labels = Object.fromEntries(asList(b.bound_labels).map((kv) => [kv.slice(0, kv.indexOf(':')), kv.slice(kv.indexOf(':') + 1)]));
  }
  if (type === 'iam' && (r.bound_service_accounts as string[]).length === 0) return errors(400, 'IAM role must have at least one service account');
  // path_role.go checks the wildcard beside other accounts for iam roles only; a gce role keeps it.
  const sas = r.bound_service_accounts as string[];
  if (type === 'iam' && sas.length > 1 && sas.includes('*')) {
    return errors(400, "cannot provide IAM service account wildcard '*' (for all service accounts) with other service accounts");
  }
  roles.set(name, r);
  return envelope(null);
}

/**
 * The read shape of vault-plugin-auth-gcp's pathRoleRead: every token_* field, role_id, type and
 * add_group_aliases always; the bound_* lists and labels only when non-empty, max_jwt_exp only when
 * set, allow_gce_inference for iam roles. The deprecated mirrors (policies, ttl, …) appear only for
 * roles written with the old names, which keyward never sends.
 */
export function readRole(r: Role): Reply {
  const data: Record<string, unknown> = Object.fromEntries(TOKEN_FIELDS.map((k) => [k, r[k]]));
  data.role_id = r.role_id;
  data.type = r.type;
  const ifSet = (k: string) => {
    const v = r[k];
    if (Array.isArray(v) ? v.length > 0 : v !== null && typeof v === 'object' ? Object.keys(v).length > 0 : v !== undefined && v !== 0) data[k] = v;
  };
  ifSet('bound_service_accounts');
  ifSet('bound_projects');
  data.add_group_aliases = r.add_group_aliases;
  if (r.type === 'iam') {
    ifSet('max_jwt_exp');
    data.allow_gce_inference = r.allow_gce_inference;
  } else for (const k of ['bound_regions', 'bound_zones', 'bound_instance_groups', 'bound_labels']) ifSet(k);
  return envelope(data);
}
