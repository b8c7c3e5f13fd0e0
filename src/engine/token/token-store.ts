// The token store: service tokens persisted under a SHA-256 of their id (the id itself is never
// stored), batch tokens self-contained and sealed. Expiry, use counts and revocation trees.

import { createHash } from 'node:crypto';
import { randomBytesPooled } from '../random-pool';
import type { Clock } from '../clock';
import type { Seal } from '../backend';
import type { JsonStore } from '../storage/json-store';
import type { TokenEntry, TokenType } from './token-entry';

type Stored = Omit<TokenEntry, 'id'>;

const hash = (id: string) => createHash('sha256').update(id).digest('hex');
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

export class TokenStore {
  constructor(
    private readonly store: JsonStore,
    private readonly seal: Seal,
    private readonly clock: Clock,
  ) {}

  async create(t: NewToken): Promise<TokenEntry> {
    const now = this.clock.now();
    const entry: Stored = {
      accessor: t.type === 'batch' ? '' : b64url(randomBytesPooled(18)),
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
    const id = t.id ?? `hvs.${b64url(randomBytesPooled(24))}`;
    const h = hash(id);
    const ops: { type: 'put'; key: string; value: unknown }[] = [
      { type: 'put', key: `id/${h}`, value: entry },
      { type: 'put', key: `accessor/${entry.accessor}`, value: { hash: h } },
    ];
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
      entry = await this.store.get<Stored>(`id/${hash(id)}`);
    }
    if (!entry) return undefined;
    if (entry.expireTime > 0 && this.clock.now() >= entry.expireTime) {
      if (entry.type === 'service') await this.revokeEntry({ ...entry, id });
      return undefined;
    }
    return { ...entry, id };
  }

  async lookupAccessor(accessor: string): Promise<TokenEntry | undefined> {
    const ref = await this.store.get<{ hash: string }>(`accessor/${accessor}`);
    if (!ref) return undefined;
    const entry = await this.store.get<Stored>(`id/${ref.hash}`);
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
    const h = hash(entry.id);
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
    const { id, ...stored } = next;
    await this.store.put(`id/${hash(id)}`, stored);
    return next;
  }

  /** Revokes a service token and, recursively, its children. */
  async revoke(entry: TokenEntry): Promise<void> {
    await this.revokeEntry(entry);
  }

  async revokeByAccessor(accessor: string): Promise<boolean> {
    const ref = await this.store.get<{ hash: string }>(`accessor/${accessor}`);
    if (!ref) return false;
    const entry = await this.store.get<Stored>(`id/${ref.hash}`);
    if (!entry) return false;
    await this.revokeHashed(ref.hash, entry);
    return true;
  }

  private async revokeEntry(entry: TokenEntry): Promise<void> {
    if (entry.type === 'batch') return;
    await this.revokeHashed(entry.id ? hash(entry.id) : ((await this.store.get<{ hash: string }>(`accessor/${entry.accessor}`))?.hash ?? ''), entry);
  }

  private async revokeHashed(h: string, entry: Stored): Promise<void> {
    for (const child of await this.store.list(`parent/${entry.accessor}/`)) {
      await this.revokeByAccessor(child);
    }
    const ops: { type: 'delete'; key: string }[] = [
      { type: 'delete', key: `accessor/${entry.accessor}` },
      ...(await this.store.list(`parent/${entry.accessor}/`)).map((c) => ({ type: 'delete' as const, key: `parent/${entry.accessor}/${c}` })),
    ];
    if (h) ops.push({ type: 'delete', key: `id/${h}` });
    if (entry.parentAccessor) ops.push({ type: 'delete', key: `parent/${entry.parentAccessor}/${entry.accessor}` });
    await this.store.batch(ops);
  }
}
