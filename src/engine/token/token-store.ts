// The token store: service tokens persisted under their accessor, a keyed hash of the id (the id
// itself is never stored), one row per token; batch tokens self-contained and sealed. Expiry, use
// counts and revocation trees.

import { createHmac } from 'node:crypto';
import { randomBytesPooled } from '../random-pool';
import type { Clock } from '../clock';
import type { Seal } from '../backend';
import type { JsonStore } from '../storage/json-store';
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
}

const ACCESSOR = /^[A-Za-z0-9_-]{16,64}$/;

export class TokenStore {
  /**
   * @param accessorKey secret HMAC key: accessors are HMAC(id), so an accessor names the token's row
   *   (lookups by id and by accessor are one read each, one row per token) and reveals nothing of it.
   */
  constructor(
    private readonly store: JsonStore,
    private readonly seal: Seal,
    private readonly clock: Clock,
    private readonly accessorKey: Buffer,
  ) {}

  /**
   * The accessor of a service token id: its creation stamp (when the id carries one) then a keyed
   * hash. Time-ordered names put new tokens at the end of the B-tree, so a commit of many logins
   * dirties a few pages instead of one random page per token.
   */
  private accessorOf(id: string): string {
    const mac = createHmac('sha256', this.accessorKey).update(id).digest('base64url').slice(0, 32);
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
      renewable: t.type === 'batch' ? false : (t.renewable ?? true),
      orphan: t.orphan,
      entityId: t.entityId ?? '',
      mountAccessor: t.mountAccessor ?? '',
      parentAccessor: t.orphan ? '' : (t.parentAccessor ?? ''),
      noDefaultPolicy: t.noDefaultPolicy ?? false,
    };
    if (t.type === 'batch') {
      const id = `hvb.${b64url(this.seal.encrypt(Buffer.from(JSON.stringify(entry), 'utf8')))}`;
      return { ...entry, id };
    }
    const id = t.id ?? `hvs.${stamp}${b64url(randomBytesPooled(24))}`;
    entry.accessor = this.accessorOf(id);
    const ops: { type: 'put'; key: string; value: unknown }[] = [{ type: 'put', key: `id/${entry.accessor}`, value: entry }];
    if (entry.parentAccessor) ops.push({ type: 'put', key: `parent/${entry.parentAccessor}/${entry.accessor}`, value: 1 });
    await this.store.batch(ops);
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
      entry = await this.store.get<Stored>(`id/${this.accessorOf(id)}`);
    }
    if (!entry) return undefined;
    if (entry.expireTime > 0 && this.clock.now() >= entry.expireTime) {
      if (entry.type === 'service') await this.revokeEntry({ ...entry, id });
      return undefined;
    }
    return { ...entry, id };
  }

  async lookupAccessor(accessor: string): Promise<TokenEntry | undefined> {
    if (!ACCESSOR.test(accessor)) return undefined;
    const entry = await this.store.get<Stored>(`id/${accessor}`);
    if (!entry) return undefined;
    if (entry.expireTime > 0 && this.clock.now() >= entry.expireTime) return undefined;
    return { ...entry, id: '' };
  }

  /**
   * Counts one use. Returns false when the token has no use left. A token whose last use this is
   * stays valid for the current request and is revoked right after (Vault semantics).
   */
  async use(entry: TokenEntry): Promise<{ ok: boolean; revokeAfter: boolean }> {
    if (entry.numUses === 0 || entry.type === 'batch') return { ok: true, revokeAfter: false };
    const h = entry.accessor;
    const current = await this.store.get<Stored>(`id/${h}`);
    if (!current || current.numUses <= 0) return { ok: false, revokeAfter: false };
    const left = current.numUses - 1;
    if (left === 0) return { ok: true, revokeAfter: true };
    await this.store.put(`id/${h}`, { ...current, numUses: left });
    entry.numUses = left;
    return { ok: true, revokeAfter: false };
  }

  /** Stores a renewed expiry. */
  async extend(entry: TokenEntry, ttlSeconds: number, settings: { maxTtl: number; period: number; ttl: number }): Promise<TokenEntry> {
    const next: TokenEntry = {
      ...entry,
      expireTime: this.clock.now() + ttlSeconds * 1000,
      maxTtl: settings.maxTtl,
      period: settings.period,
      ttl: settings.ttl,
    };
    const { id: _id, ...stored } = next;
    await this.store.put(`id/${stored.accessor}`, stored);
    return next;
  }

  /** Revokes a service token and, recursively, its children. */
  async revoke(entry: TokenEntry): Promise<void> {
    await this.revokeEntry(entry);
  }

  async revokeByAccessor(accessor: string): Promise<boolean> {
    if (!ACCESSOR.test(accessor)) return false;
    const entry = await this.store.get<Stored>(`id/${accessor}`);
    if (!entry) return false;
    await this.revokeStored(entry);
    return true;
  }

  private async revokeEntry(entry: TokenEntry): Promise<void> {
    if (entry.type === 'batch') return;
    await this.revokeStored(entry);
  }

  private async revokeStored(entry: Stored): Promise<void> {
    const children = await this.store.list(`parent/${entry.accessor}/`);
    for (const child of children) await this.revokeByAccessor(child);
    const ops: { type: 'delete'; key: string }[] = [
      { type: 'delete', key: `id/${entry.accessor}` },
      ...children.map((c) => ({ type: 'delete' as const, key: `parent/${entry.accessor}/${c}` })),
    ];
    if (entry.parentAccessor) ops.push({ type: 'delete', key: `parent/${entry.parentAccessor}/${entry.accessor}` });
    await this.store.batch(ops);
  }
}
