// Typed calls for auth mounts (sys/auth): list, enable, tune, move (sys/remount) and disable.
// Mount types are in keyward's names ("cloud"); the dialect translates them. Paths are mount
// paths as in sys/auth ("cloud", "team/a"), without the "auth/" prefix.

import { VaultClientError } from './errors';
import type { VaultClient } from './vault-client';

/** A mount's tune settings as GET sys/auth reports them (0 = the system's default/maximum). */
export interface AuthMountConfig {
  default_lease_ttl: number;
  max_lease_ttl: number;
  /** default-service | default-batch | service | batch */
  token_type: string;
  /** "" (not set), "hidden" or "unauth". */
  listing_visibility: string;
}

/** One entry of GET sys/auth, keyed there by "<path>/". */
export interface AuthMount {
  type: string;
  description: string;
  accessor?: string;
  /** Not replicated to other clusters; fixed at enable time. */
  local: boolean;
  config: AuthMountConfig;
  seal_wrap?: boolean;
}

/** Settings for sys/auth/<path>/tune; TTLs in seconds or Go durations (0 = system default). */
export interface AuthMountTune {
  description?: string;
  default_lease_ttl?: number | string;
  max_lease_ttl?: number | string;
  token_type?: string;
  listing_visibility?: string;
}

export interface RemountOptions {
  /** Give up waiting for the migration after this long (default 60 s). */
  timeoutMs?: number;
  /** First pause between status reads (default 100 ms, doubling up to 2 s). */
  pollMs?: number;
}

const num = (v: unknown): number => (typeof v === 'number' ? v : typeof v === 'string' && v !== '' && !Number.isNaN(Number(v)) ? Number(v) : 0);

function mountConfig(raw: unknown): AuthMountConfig {
  const c = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  return {
    default_lease_ttl: num(c.default_lease_ttl),
    max_lease_ttl: num(c.max_lease_ttl),
    token_type: typeof c.token_type === 'string' && c.token_type !== '' ? c.token_type : 'default-service',
    listing_visibility: typeof c.listing_visibility === 'string' ? c.listing_visibility : '',
  };
}

export class SysAuthApi {
  constructor(private readonly c: VaultClient) {}

  /** Mounts keyed by path without the trailing slash. */
  async listAuthMounts(): Promise<Map<string, AuthMount>> {
    const t = await this.c.translator();
    const res = await this.c.request('GET', 'sys/auth');
    const body = (res.body ?? {}) as { data?: Record<string, unknown> } & Record<string, unknown>;
    // Vault returns the mounts both in `data` and (older versions) at the top level.
    const table = (body.data && typeof body.data === 'object' ? body.data : body) as Record<string, unknown>;
    const out = new Map<string, AuthMount>();
    for (const [k, v] of Object.entries(table)) {
      if (!k.endsWith('/') || typeof v !== 'object' || v === null) continue;
      const m = v as Record<string, unknown>;
      out.set(k.replace(/\/$/, ''), {
        type: t.mountTypeFromServer(String(m.type ?? '')),
        description: String(m.description ?? ''),
        accessor: typeof m.accessor === 'string' ? m.accessor : undefined,
        local: m.local === true,
        config: mountConfig(m.config),
        ...(typeof m.seal_wrap === 'boolean' ? { seal_wrap: m.seal_wrap } : {}),
      });
    }
    return out;
  }

  /** Enables an auth method; `local` and the tune settings can only be chosen here (local) or later (tune). */
  async enableAuth(path: string, options: { type: string; description?: string; local?: boolean; config?: Omit<AuthMountTune, 'description'> }): Promise<string[]> {
    const t = await this.c.translator();
    const body: Record<string, unknown> = { type: t.mountTypeToServer(options.type), description: options.description ?? '' };
    if (options.local !== undefined) body.local = options.local;
    if (options.config && Object.keys(options.config).length > 0) body.config = options.config;
    // Not idempotent: after a lost response the mount may exist ("path is already in use").
    return t.errorsFromServer(await this.c.write(`sys/auth/${path}`, body, { notIdempotent: true }));
  }

  /** POST sys/auth/<path>/tune with only the settings given; resolves to the server's warnings. */
  async tune(path: string, settings: AuthMountTune): Promise<string[]> {
    const t = await this.c.translator();
    const body = Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined));
    return t.errorsFromServer(await this.c.write(`sys/auth/${path}/tune`, body));
  }

  async tuneDescription(path: string, description: string): Promise<string[]> {
    return this.tune(path, { description });
  }

  /**
   * Moves the mount at `from` to `to` (POST sys/remount), keeping its config, roles and accessor,
   * and waits for the migration: resolves to the warnings once its status is "success", throws
   * when it reports "failure" or does not finish within the bound.
   */
  async remount(from: string, to: string, options: RemountOptions = {}): Promise<string[]> {
    const t = await this.c.translator();
    const src = `auth/${from.replace(/^\/+|\/+$/g, '')}`;
    const dst = `auth/${to.replace(/^\/+|\/+$/g, '')}`;
    // Not idempotent: after a lost response (or a 5xx) the source may be gone already, so the state
    // is read instead of sending the move again: done when the mount is at the target only.
    let res: Awaited<ReturnType<typeof this.c.request>>;
    try {
      res = await this.c.request('POST', 'sys/remount', { from: src, to: dst }, { notIdempotent: true });
    } catch (e) {
      if (!VaultClientError.is(e) || !(e.status === 0 || e.status >= 500)) throw e;
      const mounts = await this.listAuthMounts();
      if (mounts.has(dst.slice('auth/'.length)) && !mounts.has(src.slice('auth/'.length))) return [];
      throw e;
    }
    const env = (res.body ?? {}) as { data?: { migration_id?: unknown }; warnings?: unknown };
    const warnings = t.errorsFromServer(Array.isArray(env.warnings) ? env.warnings.map(String) : []);
    const id = env.data?.migration_id;
    if (typeof id !== 'string' || id === '') throw new VaultClientError(res.status, 'POST', 'sys/remount', ['the server returned no migration_id']);
    const deadline = Date.now() + (options.timeoutMs ?? 60_000);
    let pause = options.pollMs ?? 100;
    for (;;) {
      const status = await this.migrationStatus(id, src, dst);
      if (status === 'success') return warnings;
      if (status === 'failure') {
        throw new VaultClientError(200, 'GET', `sys/remount/status/${id}`, [
          `moving ${src}/ to ${dst}/ failed (migration ${id}); the server's log has the cause, and the mount stays at ${src}/`,
        ]);
      }
      if (Date.now() + pause > deadline) {
        // Not a failure the server reported: the move may still finish (or have finished) after
        // this. The message says where to look before anything is sent again.
        throw new VaultClientError(0, 'GET', `sys/remount/status/${id}`, [], 1, {
          waited: `moving ${src}/ to ${dst}/ could not be confirmed within ${options.timeoutMs ?? 60_000} ms (migration ${id} still "${status || 'unknown'}"); check GET sys/remount/status/${id} and whether sys/auth lists ${dst}/ (moved) or ${src}/ (not moved) before applying again`,
        });
      }
      await new Promise((r) => setTimeout(r, pause));
      pause = Math.min(pause * 2, 2000);
    }
  }

  /**
   * A migration's status. Vault keeps it in the active node's memory: a performance standby, a new
   * leader or a restarted node does not know the id. Vault and OpenBao then answer a bare 404
   * (handleRemountStatusCheck returns nil; OpenBao 2.7.2 measured), some versions a 400. Then the
   * mount table, read consistently after the remount's write (X-Vault-Index), tells: the mount at
   * the target and gone from the source is done.
   */
  private async migrationStatus(id: string, src: string, dst: string): Promise<string> {
    let data: { migration_info?: { status?: unknown } } | undefined;
    try {
      data = await this.c.read<{ migration_info?: { status?: unknown } }>(`sys/remount/status/${encodeURIComponent(id)}`);
    } catch (e) {
      if (!VaultClientError.is(e) || e.status !== 400) throw e;
    }
    if (data !== undefined) return String(data?.migration_info?.status ?? '');
    const mounts = await this.listAuthMounts();
    return mounts.has(dst.slice('auth/'.length)) && !mounts.has(src.slice('auth/'.length)) ? 'success' : 'unknown';
  }

  async disableAuth(path: string): Promise<void> {
    await this.c.delete(`sys/auth/${path}`);
  }
}
