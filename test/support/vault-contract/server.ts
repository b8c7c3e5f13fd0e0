// A contract test server that speaks Vault's names and shapes strictly: Vault Enterprise (or a
// community build) with the GCP auth method and automated snapshots, on a loopback port. Every
// unknown field or value outside Vault's vocabulary is recorded in `problems`; tests require it
// empty, so a name keyward forgot to translate fails the test even where Vault would only warn.

import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gcpConfig, newGcpConfig, readRole, rotateOnSchedule, rotateRoot, writeRole, type GcpConfig, type Role } from './gcp-auth';
import { envelope, errors, type Ctx, type Reply } from './http';
import { remount, remountStatus, type Migration, type RemountOptions } from './remount';
import { snapshotConfig, snapshotStatus, type SnapshotConfig, type SnapshotOptions, type SnapshotRun } from './snapshot-auto';
import { communityRoute, type Flavor, type RaftSnapshotMode } from './community';
import { startStandby } from './standby';
import { startPerfStandby, type PerfStandbyOptions } from './perf-standby';
import { health, licenseStatus, sysAuth, type Mount, type SysOptions } from './sys';

export const CONTRACT_TOKEN = 'contract-root-token';

export interface ContractOptions {
  /** Enterprise (default) answers sys/license/status and snapshot-auto; community builds do not. */
  enterprise?: boolean;
  version?: string;
  /** Snapshot config updates: 'replace' (default; Vault's docs do not promise a merge) or 'merge'. */
  snapshotUpdate?: 'replace' | 'merge';
  /** Managed-identity Azure configs need azure_client_id (default true; see snapshot-auto.ts). */
  azureManagedNeedsClientId?: boolean;
  /** azure-blob writes must carry azure_auth_mode (default true; see snapshot-auto.ts). */
  azureAuthModeRequired?: boolean;
  /** sys/remount/status reads answered "in-progress" before the result (default 1). */
  remountPendingReads?: number;
  /** 'openbao': OpenBao's health shape, version 2.2.0, no built-in gcp (community.ts); default 'vault'. */
  flavor?: Flavor;
  /** The name the GCP auth plugin is registered under in the catalog (default gcp; OpenBao: the operator's choice). */
  gcpPluginName?: string;
  /** What GET sys/storage/raft/snapshot streams (community.ts; default 'complete'). */
  raftSnapshot?: RaftSnapshotMode;
}

export interface VaultContract {
  url: string;
  problems: string[];
  /** Every request: method, path and (for the secret scan) the raw body. */
  requests: Array<{ method: string; path: string }>;
  mounts: Map<string, Mount>;
  gcp: Map<string, { config: GcpConfig; roles: Map<string, Role> }>;
  snapshots: Map<string, SnapshotConfig>;
  /** Status of configs that have "run" (tests set it, as Vault's scheduler would); others read blank. */
  statuses: Map<string, SnapshotRun>;
  /** Snapshot update semantics in force; tests may switch it between calls. */
  snapshotOptions: SnapshotOptions;
  /** Remount behaviour: set `failNext` to make the next migration fail. */
  remountOptions: RemountOptions;
  migrations: Map<string, Migration>;
  /** Records a failed run of a config, as Vault's scheduler would (no consecutive_errors in Vault). */
  failSnapshot(name: string, message: string, at?: string): void;
  /** Records an autoload failure of a config (loading_error). */
  failLoading(name: string, message: string): void;
  /** Vault rotating the mount's root key on its schedule: a new private_key_id. */
  rotateKey(mount: string): string;
  /** A token as a login through auth/<mount> would issue (the contract server has no login); see `tokens`. */
  issueToken(mount: string): string;
  /**
   * Harsh mode: "POST sys/remount"-style keys whose next request is carried out and then its
   * response lost (the connection drops), as when a proxy times out: a client must not repeat it blindly.
   */
  loseNextResponse: Set<string>;
  /** What GET sys/storage/raft/snapshot streams from now on (community.ts). */
  community: { snapshot: RaftSnapshotMode; sealed: boolean };
  /** Live tokens -> the auth mount that issued them; remount revokes the moved mount's (vault/auth.go). */
  tokens: Map<string, string>;
  /**
   * Vault Enterprise's rotation manager: mount path -> the root rotation registered by a config
   * write with rotation fields. Keyed by path, it drops a moved mount's entry (a known issue, 1.19
   * onward, "workaround: none"): only a config write with the rotation fields registers it again.
   */
  rotations: Map<string, { period: number; schedule: string }>;
  /**
   * A standby node of this cluster on its own port: sys/health answers 429 (`standby`) or 473
   * (`perfstandby`), every other request a 307 to the active node (http/handler.go without
   * request forwarding). Closed with the contract server.
   */
  standby(kind?: 'standby' | 'perfstandby'): Promise<{ url: string; requests: Array<{ method: string; path: string }> }>;
  /**
   * A performance standby that serves reads from a lagging copy (stale, or 412 to a request whose
   * X-Vault-Index it has not reached) and forwards writes; remount status is node-local (404).
   */
  perfStandby(o?: PerfStandbyOptions): Promise<{ url: string; requests: Array<{ method: string; path: string; index?: string }> }>;
  close(): Promise<void>;
}

export async function startVaultContract(o: ContractOptions = {}): Promise<VaultContract> {
  const flavor = o.flavor ?? 'vault';
  const enterpriseOpt = flavor === 'openbao' ? false : (o.enterprise ?? true);
  const gcpType = o.gcpPluginName ?? 'gcp';
  const sys: SysOptions = {
    enterprise: enterpriseOpt,
    version: o.version ?? (flavor === 'openbao' ? '2.2.0' : enterpriseOpt ? '1.19.2+ent' : '1.19.2'),
    flavor,
    registeredAuth: o.gcpPluginName ? [o.gcpPluginName] : [],
  };
  const problems: string[] = [];
  const requests: VaultContract['requests'] = [];
  const mounts = new Map<string, Mount>([['token', { type: 'token', description: 'token based credentials', accessor: 'auth_token_0' }]]);
  const gcp: VaultContract['gcp'] = new Map();
  const snapshots = new Map<string, SnapshotConfig>();
  const statuses = new Map<string, SnapshotRun>();
  const snapshotOptions: SnapshotOptions = {
    update: o.snapshotUpdate ?? 'replace',
    azureManagedNeedsClientId: o.azureManagedNeedsClientId ?? true,
    azureAuthModeRequired: o.azureAuthModeRequired ?? true,
  };
  const remountOptions: RemountOptions = { pendingReads: o.remountPendingReads ?? 1, failNext: false };
  const migrations = new Map<string, Migration>();
  const deletedKeys = new Set<string>();
  const tokens = new Map<string, string>();
  const rotations = new Map<string, { period: number; schedule: string }>();
  const loseNextResponse = new Set<string>();
  const closers: Array<() => Promise<void>> = [];
  const community = {
    snapshot: o.raftSnapshot ?? 'complete',
    get sealed() {
      return sys.sealed === true;
    },
    set sealed(v: boolean) {
      sys.sealed = v;
    },
  };
  /**
   * A remount keeps the mount entry (accessor, config) and the method's data, and revokes every
   * token and lease issued through the mount (remountCredential: RevokePrefix on the old path).
   */
  const move = (from: string, to: string) => {
    for (const [t, m] of [...tokens]) if (m === from) tokens.delete(t);
    // The rotation manager's entry is keyed by the old path and is not carried over.
    rotations.delete(from);
    mounts.set(to, mounts.get(from)!);
    mounts.delete(from);
    const data = gcp.get(from);
    if (data) {
      gcp.set(to, data);
      gcp.delete(from);
    }
  };

  const gcpOf = (mount: string) => {
    if (!gcp.has(mount)) gcp.set(mount, { config: newGcpConfig(), roles: new Map() });
    return gcp.get(mount)!;
  };

  const route = (ctx: Ctx, token: string | undefined, query: URLSearchParams): Reply => {
    const p = ctx.path;
    if (p === 'sys/health') return health(sys, 'active', query);
    if (sys.sealed) return errors(503, 'Vault is sealed');
    if (p === 'auth/token/lookup-self' && token !== undefined && tokens.has(token)) return envelope({ path: `auth/${tokens.get(token)}/login` });
    if (token !== CONTRACT_TOKEN) return errors(403, 'permission denied');
    const common = communityRoute(ctx, community.snapshot);
    if (common) return common;
    if (p === 'sys/license/status') return licenseStatus(sys);
    if (p === 'sys/remount') return remount(ctx, mounts, migrations, remountOptions, move);
    if (p.startsWith('sys/remount/status/')) return remountStatus(ctx, migrations, decodeURIComponent(p.slice('sys/remount/status/'.length)));
    if (p === 'sys/auth' || p.startsWith('sys/auth/')) {
      const r = sysAuth(ctx, mounts, p.slice('sys/auth'.length).replace(/^\//, ''), sys);
      for (const k of [...gcp.keys()]) if (mounts.get(k)?.type !== gcpType) gcp.delete(k);
      return r;
    }
    if (p.startsWith('sys/storage/raft/snapshot-auto/')) {
      if (!sys.enterprise) return errors(404, '1 error occurred:\n\t* unsupported path\n\n');
      const rest = p.slice('sys/storage/raft/snapshot-auto/'.length);
      if (rest === 'config') {
        if (ctx.method !== 'list') return errors(405, 'unsupported operation');
        return snapshots.size ? envelopeKeys([...snapshots.keys()]) : errors(404);
      }
      if (rest.startsWith('config/')) return snapshotConfig(ctx, snapshots, decodeURIComponent(rest.slice('config/'.length)), snapshotOptions);
      if (rest.startsWith('status/') && ctx.method === 'read') return snapshotStatus(snapshots, statuses, decodeURIComponent(rest.slice('status/'.length)));
      return errors(404, '1 error occurred:\n\t* unsupported path\n\n');
    }
    if (p.startsWith('auth/')) {
      // Longest mount path first: mounts may hold slashes ("team/cloud").
      const mount = [...mounts.keys()].sort((a, b) => b.length - a.length).find((m) => p === `auth/${m}` || p.startsWith(`auth/${m}/`));
      if (!mount || mounts.get(mount)!.type !== gcpType) return errors(404, '1 error occurred:\n\t* unsupported path\n\n');
      const rest = p.slice(`auth/${mount}/`.length);
      const m = gcpOf(mount);
      if (rest === 'config') {
        const reply = gcpConfig(ctx, m.config, deletedKeys, flavor);
        // A write carrying rotation fields (re-)registers the root rotation (automatedrotationutil).
        const b = (ctx.body ?? {}) as Record<string, unknown>;
        const c = m.config;
        if (ctx.method === 'update' && reply.status < 300 && ['rotation_period', 'rotation_schedule'].some((k) => b[k] !== undefined)) {
          if (!c.disable_automated_rotation && (c.rotation_period > 0 || c.rotation_schedule !== ''))
            rotations.set(mount, { period: c.rotation_period, schedule: c.rotation_schedule });
          else rotations.delete(mount);
        }
        return reply;
      }
      // The plugin OpenBao runs has no rotate-root (measured: 404 unsupported path).
      if (rest === 'config/rotate-root') return flavor === 'openbao' ? errors(404, '1 error occurred:\n\t* unsupported path\n\n') : rotateRoot(ctx, m.config, deletedKeys);
      if (rest === 'roles' || rest === 'role') {
        if (ctx.method !== 'list') return errors(405, 'unsupported operation');
        return m.roles.size ? envelopeKeys([...m.roles.keys()]) : errors(404);
      }
      const rm = /^role\/([^/]+)$/.exec(rest);
      if (rm) {
        const name = decodeURIComponent(rm[1]).toLowerCase();
        if (ctx.method === 'read') return m.roles.has(name) ? readRole(m.roles.get(name)!) : errors(404);
        if (ctx.method === 'delete') {
          m.roles.delete(name);
          return { status: 204 };
        }
        return writeRole(ctx, m.roles, name);
      }
      return errors(404, '1 error occurred:\n\t* unsupported path\n\n');
    }
    return errors(404, '1 error occurred:\n\t* unsupported path\n\n');
  };

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname.replace(/^\/v1\//, '').replace(/\/+$/, '');
    const verb = req.method ?? 'GET';
    const list = verb === 'LIST' || (verb === 'GET' && url.searchParams.get('list') === 'true');
    const method: Ctx['method'] = list ? 'list' : verb === 'GET' ? 'read' : verb === 'DELETE' ? 'delete' : 'update';
    let body: Record<string, unknown> = {};
    if (raw.trim() !== '') body = JSON.parse(raw) as Record<string, unknown>;
    requests.push({ method: verb, path: url.pathname + url.search });
    const ctx: Ctx = { method, path, body, problem: (m) => problems.push(m) };
    const token = (req.headers['x-vault-token'] as string | undefined) ?? undefined;
    const delay = snapshotOptions.delayAutoloadDisableMs;
    if (delay && method === 'update' && path.startsWith('sys/storage/raft/snapshot-auto/config/') && body.autoload_enabled === false) {
      setTimeout(() => {
        try {
          respond(res, route(ctx, token, url.searchParams), method);
        } catch (e) {
          problems.push(`internal: ${(e as Error).message}`);
          respond(res, errors(500, 'internal error'));
        }
      }, delay);
      return;
    }
    const r = route(ctx, token, url.searchParams);
    if (loseNextResponse.delete(`${verb} ${path}`)) {
      res.socket?.destroy();
      return;
    }
    respond(res, r, method);
  };

  let index = 0;
  const respond = (res: ServerResponse, r: Reply, method?: Ctx['method']) => {
    // Responses to requests that modify storage carry the new state (Vault Ent consistency.mdx).
    const state: Record<string, string> = (method === 'update' || method === 'delete') && r.status < 300 ? { 'x-vault-index': `contract-state-${++index}` } : {};
    if (r.body === undefined) res.writeHead(r.status, state).end();
    else if (Buffer.isBuffer(r.body)) res.writeHead(r.status, { 'content-type': 'application/octet-stream', ...state }).end(r.body);
    else res.writeHead(r.status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...state }).end(JSON.stringify(r.body));
  };

  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      try {
        handle(req, res, raw);
      } catch (e) {
        problems.push(`internal: ${(e as Error).message}`);
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: ['internal error'] }));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    problems,
    requests,
    mounts,
    gcp,
    snapshots,
    statuses,
    snapshotOptions,
    remountOptions,
    migrations,
    failSnapshot: (name, message, at = '2025-08-29T17:00:00+02:00') => {
      statuses.set(name, {
        ...statuses.get(name),
        last_snapshot_start: at,
        last_snapshot_end: at,
        last_snapshot_error: message,
        last_snapshot_url: '',
        snapshot_start: at,
        snapshot_url: '',
      });
    },
    failLoading: (name, message) => {
      const prev = statuses.get(name) ?? { last_snapshot_start: '', last_snapshot_end: '', last_snapshot_error: '', last_snapshot_url: '', snapshot_start: '', snapshot_url: '' };
      statuses.set(name, { ...prev, loaded_snapshot_status: 'failed', loading_error: message });
    },
    rotateKey: (mount) => rotateOnSchedule(gcpOf(mount).config, deletedKeys),
    issueToken: (mount) => {
      const t = `hvs.${randomUUID().replace(/-/g, '')}`;
      tokens.set(t, mount);
      return t;
    },
    tokens,
    rotations,
    loseNextResponse,
    community,
    perfStandby: async (po) => {
      const s = await startPerfStandby(url, (q) => health(sys, 'perfstandby', q), po);
      closers.push(s.close);
      return { url: s.url, requests: s.requests };
    },
    standby: async (kind = 'standby') => {
      const s = await startStandby(url, (q) => health(sys, kind, q));
      closers.push(s.close);
      return { url: s.url, requests: s.requests };
    },
    close: async () => {
      for (const c of closers) await c();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

function envelopeKeys(keys: string[]): Reply {
  return { status: 200, body: { request_id: 'list', lease_id: '', renewable: false, lease_duration: 0, data: { keys: keys.sort() }, wrap_info: null, warnings: null, auth: null } };
}
