// The token store: service tokens persisted one row per token under a keyed hash of their accessor
// (itself a keyed hash of the id; neither the id nor the accessor appears in a storage key or a
// snapshot's key list, as Vault stores its token index under salted hashes); batch tokens
// self-contained and sealed. Expiry, use
// counts and revocation trees. Every write of a token record runs under that token's lock and
// re-reads the stored record first, so a renewal or use racing a revocation always loses.

import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { randomBytesPooled } from '../random-pool';
import type { Clock } from '../clock';
import type { Seal } from '../route-family';
import type { JsonStore, JsonStoreOp } from '../storage/json-store';
import { ApiError } from '../../schema/errors';
import { KeyedLock } from '../keyed-lock';
import type { TokenEntry, TokenType } from './token-entry';

type Stored = Omit<TokenEntry, 'id'>;

const b64url = (b: Buffer) => b.toString('base64url');

export interface NewToken {
  type: TokenType;
  policies: string[];
  path: string;
  meta?: Record<string, string>;
  displayName: string;
  namespaceId: string;
  numUses?: number;
  ttl: number;
  maxTtl?: number;
  explicitMaxTtl?: number;
  period?: number;
  boundCidrs?: string[];
  renewable?: boolean;
  orphan: boolean;
  parentAccessor?: string;
  entityId?: string;
  mountAccessor?: string;
  noDefaultPolicy?: boolean;
  /** Only for the root token given on the command line. */
  id?: string;
  internal?: Record<string, string>;
}

/** Why a write to a token record was refused: it is gone (revoked, expired) or used up. */
export class TokenGoneError extends ApiError {
  constructor() {
    super('permission_denied', ['permission denied']);
  }
}

const ACCESSOR = /^[A-Za-z0-9_-]{16,64}$/;
/** Storage layout marker: 2 = rows under keyed row names (see rowName). */
const LAYOUT_KEY = 'layout';
const LAYOUT = 2;

export class TokenStore {
  private readonly locks = new KeyedLock();
  /** The accessor key as a KeyObject, made once (a Buffer key is prepared again per HMAC). */
  private readonly hmacKey: KeyObject;
  /** Keys the storage names of rows (derived from the accessor key, so no new secret to keep). */
  private readonly rowKey: KeyObject;

  /**
   * @param accessorKey secret HMAC key: accessors are HMAC(id), so an accessor names the token's row
   *   (lookups by id and by accessor are one read each, one row per token) and reveals nothing of it.
   */
  constructor(
    private readonly store: JsonStore,
    private readonly seal: Seal,
    private readonly clock: Clock,
    accessorKey: Buffer,
  ) {
    this.hmacKey = createSecretKey(accessorKey);
    this.rowKey = createSecretKey(createHmac('sha256', accessorKey).update('keyward token storage key').digest());
  }

  /**
   * The storage name of a token's row: the accessor's creation stamp (kept, so new rows still land
   * at the end of the B-tree) then a keyed hash of the accessor.
   */
  private rowName(accessor: string): string {
    const mac = createHmac('sha256', this.rowKey).update(accessor).digest('base64url').slice(0, 32);
    const m = /^([0-9a-f]{12})[A-Za-z0-9_-]{32}$/.exec(accessor);
    return m ? `${m[1]}${mac}` : mac;
  }

  private row(accessor: string): string {
    return `id/${this.rowName(accessor)}`;
  }

  private childKey(parentAccessor: string, childAccessor: string): string {
    return `parent/${this.rowName(parentAccessor)}/${this.rowName(childAccessor)}`;
  }

  /** The stored children of a token, as records (index entries whose token is gone are skipped). */
  private async children(accessor: string): Promise<{ rowNames: string[]; entries: Stored[] }> {
    const rowNames = await this.store.list(`parent/${this.rowName(accessor)}/`);
    const entries: Stored[] = [];
    for (const r of rowNames) {
      const c = await this.store.get<Stored>(`id/${r}`);
      if (c) entries.push(c);
    }
    return { rowNames, entries };
  }

  /**
   * Moves rows stored under the plain accessor (before keyed row names) to their row names, and
   * their parent index entries with them; idempotent, resumable after a crash, and a no-op once the
   * layout marker is stored. Runs at start and after a snapshot restore.
   */
  async migrateStorageLayout(): Promise<number> {
    if ((await this.store.get<number>(LAYOUT_KEY)) === LAYOUT) return 0;
    let moved = 0;
    let ops: JsonStoreOp[] = [];
    const flush = async () => {
      if (ops.length > 0) await this.store.batch(ops);
      ops = [];
    };
    for (const name of await this.store.list('id/')) {
      const entry = await this.store.get<Stored>(`id/${name}`);
      if (!entry || entry.accessor !== name || this.rowName(name) === name) continue;
      ops.push({ type: 'put', key: this.row(name), value: entry }, { type: 'delete', key: `id/${name}` });
      moved++;
      if (ops.length >= 500) await flush();
    }
    await flush();
    // An index segment is a plain accessor when its row now lives under that accessor's row name.
    const plain = async (seg: string) => (await this.store.get(this.row(seg))) !== undefined;
    for (const key of await this.store.list('parent/')) {
      const [p, c] = key.split('/');
      if (!p || !c) continue;
      const [pp, cp] = [await plain(p), await plain(c)];
      if (!pp && !cp) continue;
      ops.push({ type: 'put', key: `parent/${pp ? this.rowName(p) : p}/${cp ? this.rowName(c) : c}`, value: 1 }, { type: 'delete', key: `parent/${key}` });
      if (ops.length >= 500) await flush();
    }
    await flush();
    await this.store.put(LAYOUT_KEY, LAYOUT);
    return moved;
  }

  /**
   * The accessor of a service token id: its creation stamp (when the id carries one) then a keyed
   * hash. Time-ordered names put new tokens at the end of the B-tree, so a commit of many logins
   * dirties a few pages instead of one random page per token.
   */
  private accessorOf(id: string): string {
    const mac = createHmac('sha256', this.hmacKey).update(id).digest('base64url').slice(0, 32);
    const m = /^hvs\.([0-9a-f]{12})/.exec(id);
    return m ? `${m[1]}${mac}` : mac;
  }

  async create(t: NewToken): Promise<TokenEntry> {
    const now = this.clock.now();
    const stamp = Math.max(0, Math.floor(now)).toString(16).padStart(12, '0');
    const entry: Stored = {
      accessor: '',
      type: t.type,
      policies: t.policies,
      path: t.path,
      meta: t.meta ?? {},
      displayName: t.displayName,
      namespaceId: t.namespaceId,
      numUses: t.numUses ?? 0,
      creationTime: now,
      expireTime: t.ttl > 0 ? now + t.ttl * 1000 : 0,
      ttl: t.ttl,
      maxTtl: t.maxTtl ?? 0,
      explicitMaxTtl: t.explicitMaxTtl ?? 0,
      period: t.period ?? 0,
      boundCidrs: t.boundCidrs ?? [],
      // A token without a TTL (root) has no lease to renew (Vault).
      renewable: t.type === 'batch' || t.ttl <= 0 ? false : (t.renewable ?? true),
      orphan: t.orphan,
      entityId: t.entityId ?? '',
      mountAccessor: t.mountAccessor ?? '',
      parentAccessor: t.orphan ? '' : (t.parentAccessor ?? ''),
      noDefaultPolicy: t.noDefaultPolicy ?? false,
      ...(t.internal ? { internal: t.internal } : {}),
    };
    if (t.type === 'batch') {
      const id = `hvb.${b64url(this.seal.encrypt(Buffer.from(JSON.stringify(entry), 'utf8')))}`;
      return { ...entry, id };
    }
    const id = t.id ?? `hvs.${stamp}${b64url(randomBytesPooled(24))}`;
    entry.accessor = this.accessorOf(id);
    const row = { type: 'put' as const, key: this.row(entry.accessor), value: entry };
    const parent = entry.parentAccessor;
    if (!parent) {
      await this.store.batch([row]);
      return { ...entry, id };
    }
    // Under the parent's lock: a child is never attached to a parent being revoked.
    await this.locks.run(parent, async () => {
      if (!this.live(await this.store.get<Stored>(this.row(parent)))) throw new TokenGoneError();
      await this.store.batch([row, { type: 'put', key: this.childKey(parent, entry.accessor), value: 1 }]);
    });
    return { ...entry, id };
  }

  /** The live entry for a token id, or undefined when unknown, expired or exhausted. */
  async lookup(id: string): Promise<TokenEntry | undefined> {
    let entry: Stored | undefined;
    if (id.startsWith('hvb.')) {
      try {
        entry = JSON.parse(this.seal.decrypt(Buffer.from(id.slice(4), 'base64url')).toString('utf8')) as Stored;
      } catch {
        return undefined;
      }
    } else {
      entry = await this.store.get<Stored>(this.row(this.accessorOf(id)));
    }
    if (!entry || entry.numUses < 0) return undefined;
    if (entry.expireTime > 0 && this.clock.now() >= entry.expireTime) {
      if (entry.type === 'service') await this.revokeEntry({ ...entry, id });
      return undefined;
    }
    if (entry.parentAccessor && !(await this.ancestorsLive(entry.parentAccessor))) return undefined;
    return { ...entry, id };
  }

  /**
   * Whether every ancestor of a token is still valid. A parent that expired takes its children with
   * it (Vault's expiration manager revokes the whole tree at expiry), and is revoked here on first
   * sight, since nothing revokes it earlier. Batch tokens are not in storage, so this check is the
   * only way their parent's revocation reaches them (Vault checks a batch token's parent on use).
   */
  private async ancestorsLive(parentAccessor: string): Promise<boolean> {
    let accessor = parentAccessor;
    // Bounded: a corrupted record naming itself as an ancestor must not loop forever.
    for (let depth = 0; accessor && depth < 1000; depth++) {
      const parent = await this.store.get<Stored>(this.row(accessor));
      if (!parent || parent.numUses < 0) return false; // revoked, or used up (its revocation follows)
      if (parent.expireTime > 0 && this.clock.now() >= parent.expireTime) {
        await this.revokeStored(parent);
        return false;
      }
      accessor = parent.parentAccessor;
    }
    return true;
  }

  /** A stored record that may still be used: present, not exhausted, not expired. */
  private live(s: Stored | undefined): s is Stored {
    return !!s && s.numUses >= 0 && (s.expireTime === 0 || this.clock.now() < s.expireTime);
  }

  /** Accessors of the live service tokens of a namespace (LIST auth/token/accessors), sorted. */
  async listAccessors(namespaceId: string): Promise<string[]> {
    const out: string[] = [];
    for (const name of await this.store.list('id/')) {
      const entry = await this.store.get<Stored>(`id/${name}`);
      if (this.live(entry) && entry.namespaceId === namespaceId) out.push(entry.accessor);
    }
    return out.sort();
  }

  /**
   * Revokes every stored token of a namespace that was issued through logins under `pathPrefix`
   * (Vault's remount revokes the moved auth mount's tokens and leases by prefix: vault/auth.go
   * remountCredential, RevokePrefix). Batch tokens are not stored and cannot be revoked. Resolves
   * to how many were revoked.
   */
  async revokeIssuedUnder(namespaceId: string, pathPrefix: string): Promise<number> {
    let n = 0;
    for (const accessor of await this.store.list('id/')) {
      const entry = await this.store.get<Stored>(`id/${accessor}`);
      if (!this.live(entry) || entry.namespaceId !== namespaceId || !entry.path.startsWith(pathPrefix)) continue;
      await this.revokeStored(entry);
      n++;
    }
    return n;
  }

  async lookupAccessor(accessor: string): Promise<TokenEntry | undefined> {
    if (!ACCESSOR.test(accessor)) return undefined;
    const entry = await this.store.get<Stored>(this.row(accessor));
    if (!this.live(entry)) return undefined;
    if (entry.parentAccessor && !(await this.ancestorsLive(entry.parentAccessor))) return undefined;
    return { ...entry, id: '' };
  }

  /**
   * Re-checks a service token against its stored record and counts one use, atomically under the
   * token's lock. `ok: false` when it was revoked, expired or used up since the request began. The
   * use that exhausts a token marks it exhausted in the same write, so every later request fails;
   * the current request still runs and the caller revokes the token right after (Vault's UseToken).
   */
  async use(entry: TokenEntry): Promise<{ ok: boolean; revokeAfter: boolean }> {
    if (entry.type === 'batch') return { ok: true, revokeAfter: false };
    return this.locks.run(entry.accessor, async () => {
      const current = await this.store.get<Stored>(this.row(entry.accessor));
      if (!this.live(current)) return { ok: false, revokeAfter: false };
      if (current.numUses === 0) return { ok: true, revokeAfter: false };
      const left = current.numUses - 1;
      await this.store.put(this.row(entry.accessor), { ...current, numUses: left === 0 ? -1 : left });
      if (left > 0) entry.numUses = left;
      return { ok: true, revokeAfter: left === 0 };
    });
  }

  /**
   * Stores a renewed expiry on the record as it is now (never the request's stale copy). Throws
   * TokenGoneError when the token was revoked, expired or used up meanwhile: a renewal racing a
   * revocation loses.
   */
  async extend(entry: TokenEntry, ttlSeconds: number, settings: { maxTtl: number; period: number; ttl: number }): Promise<TokenEntry> {
    return this.locks.run(entry.accessor, async () => {
      const current = await this.store.get<Stored>(this.row(entry.accessor));
      if (!this.live(current)) throw new TokenGoneError();
      const now = this.clock.now();
      const next: Stored = {
        ...current,
        expireTime: now + ttlSeconds * 1000,
        maxTtl: settings.maxTtl,
        period: settings.period,
        ttl: settings.ttl,
        lastRenewalTime: now,
      };
      await this.store.put(this.row(entry.accessor), next);
      return { ...next, id: entry.id };
    });
  }

  /** Revokes a service token and, recursively, its children. */
  async revoke(entry: TokenEntry): Promise<void> {
    await this.revokeEntry(entry);
  }

  /**
   * Revokes one service token and keeps its children, which become orphans (Vault's revoke-orphan).
   * Under the token's lock, so no child is attached meanwhile; each child rewritten under its own.
   */
  async revokeOrphan(entry: TokenEntry): Promise<void> {
    if (entry.type === 'batch') return;
    await this.locks.run(entry.accessor, async () => {
      const { rowNames, entries } = await this.children(entry.accessor);
      for (const child of entries) {
        await this.locks.run(child.accessor, async () => {
          const c = await this.store.get<Stored>(this.row(child.accessor));
          if (c) await this.store.put(this.row(child.accessor), { ...c, parentAccessor: '', orphan: true });
        });
      }
      await this.store.batch(this.removal(entry, rowNames));
    });
  }

  async revokeByAccessor(accessor: string): Promise<boolean> {
    if (!ACCESSOR.test(accessor)) return false;
    const entry = await this.store.get<Stored>(this.row(accessor));
    if (!entry) return false;
    await this.revokeStored(entry);
    return true;
  }

  private async revokeEntry(entry: TokenEntry): Promise<void> {
    if (entry.type === 'batch') return;
    await this.revokeStored(entry);
  }

  private revokeStored(entry: Stored): Promise<void> {
    return this.locks.run(entry.accessor, () => this.revokeLocked(entry));
  }

  private async revokeLocked(entry: Stored): Promise<void> {
    const { rowNames, entries } = await this.children(entry.accessor);
    for (const child of entries) await this.revokeStored(child);
    await this.store.batch(this.removal(entry, rowNames));
  }

  /** Deletes a token's row, its children's index entries and its own entry in its parent's index. */
  private removal(entry: Stored, childRowNames: string[]): JsonStoreOp[] {
    const own = this.rowName(entry.accessor);
    const ops: JsonStoreOp[] = [{ type: 'delete', key: `id/${own}` }, ...childRowNames.map((c) => ({ type: 'delete' as const, key: `parent/${own}/${c}` }))];
    if (entry.parentAccessor) ops.push({ type: 'delete', key: this.childKey(entry.parentAccessor, entry.accessor) });
    return ops;
  }
}
