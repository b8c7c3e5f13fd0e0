// Typed calls for auth mounts (sys/auth): list, enable, disable, and description updates (tune).
// Mount types are in keyward's names ("cloud"); the dialect translates them.

import type { VaultClient } from './vault-client';

/** One entry of GET sys/auth, keyed there by "<path>/". */
export interface AuthMount {
  type: string;
  description: string;
  accessor?: string;
  config?: Record<string, unknown>;
  local?: boolean;
  seal_wrap?: boolean;
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
        config: (m.config as Record<string, unknown>) ?? undefined,
      });
    }
    return out;
  }

  async enableAuth(path: string, options: { type: string; description?: string }): Promise<void> {
    const t = await this.c.translator();
    await this.c.write(`sys/auth/${path}`, { type: t.mountTypeToServer(options.type), description: options.description ?? '' });
  }

  async tuneDescription(path: string, description: string): Promise<void> {
    await this.c.write(`sys/auth/${path}/tune`, { description });
  }

  async disableAuth(path: string): Promise<void> {
    await this.c.delete(`sys/auth/${path}`);
  }
}
