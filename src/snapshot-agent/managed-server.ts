// The server the agent manages (Vault Community, OpenBao, or the engine in oss edition), through
// the typed client: its dialect, token lookup and renewal, a caller's capabilities, and its
// snapshot endpoint. Every call names the token it uses; the agent stores none of them.

import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { randomUUID } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { VaultClient } from '../client/vault-client';
import { createDispatcher, type ClientSettings } from '../client/options';
import type { ServerInfo } from '../client/dialect';
import type { SnapshotArchive } from '../engine/snapshot/host';
import { verifyingTee } from '../engine/snapshot/archive-verify';

export interface TokenState {
  ttl: number;
  renewable: boolean;
}

export class ManagedServer {
  private readonly dispatcher: Dispatcher;
  private anonymous: VaultClient;

  constructor(
    private readonly settings: ClientSettings,
    /** A directory of this process's own where archives are spooled before upload. */
    private readonly scratchDir: string,
  ) {
    this.dispatcher = createDispatcher(settings);
    this.anonymous = this.as(undefined);
  }

  get address(): string {
    return this.anonymous.address;
  }

  private as(token: string | undefined): VaultClient {
    return new VaultClient({ ...this.settings, token }, {}, this.dispatcher);
  }

  info(): Promise<ServerInfo> {
    return this.anonymous.serverInfo();
  }

  /** Drops a failed sys/health read (the client keeps its first answer, failures included). */
  forgetInfo(): void {
    this.anonymous = this.as(undefined);
  }

  /** The managed server's own sys/health body (status code and fields), for the agent's health. */
  async health(query: string): Promise<{ status: number; body: unknown }> {
    const res = await this.dispatcher.request({
      origin: new URL(this.address).origin,
      path: `${new URL(this.address).pathname.replace(/\/+$/, '')}/v1/sys/health${query}`,
      method: 'GET',
    });
    const text = await res.body.text();
    return { status: res.statusCode, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
  }

  /**
   * One request passed on for a caller (forwarded-routes.ts): the caller's token and namespace,
   * the managed server's status and body as they came. Throws only when no answer came.
   */
  async forward(r: { method: 'GET' | 'POST'; path: string; token?: string; namespace?: string; body?: Record<string, unknown> }): Promise<{ status: number; body: unknown }> {
    const url = new URL(this.address);
    const headers: Record<string, string> = {};
    if (r.token) headers['x-vault-token'] = r.token;
    if (r.namespace) headers['x-vault-namespace'] = r.namespace;
    if (r.body !== undefined) headers['content-type'] = 'application/json';
    const res = await this.dispatcher.request({
      origin: url.origin,
      path: `${url.pathname.replace(/\/+$/, '')}/v1/${r.path}`,
      method: r.method,
      headers,
      body: r.body === undefined ? undefined : JSON.stringify(r.body),
    });
    const text = await res.body.text();
    if (text.trim() === '') return { status: res.statusCode, body: undefined };
    try {
      return { status: res.statusCode, body: JSON.parse(text) as unknown };
    } catch {
      // Not Vault's JSON (a proxy's page): its status, with the text as Vault's error list.
      return { status: res.statusCode, body: { errors: [text.slice(0, 200)] } };
    }
  }

  async lookupSelf(token: string): Promise<TokenState> {
    const data = await this.as(token).read<{ ttl?: number; renewable?: boolean }>('auth/token/lookup-self');
    return { ttl: Number(data?.ttl ?? 0), renewable: data?.renewable === true };
  }

  async renewSelf(token: string): Promise<TokenState> {
    const res = await this.as(token).request('POST', 'auth/token/renew-self', {});
    const auth = (res.body as { auth?: { lease_duration?: number; renewable?: boolean } } | undefined)?.auth;
    return { ttl: Number(auth?.lease_duration ?? 0), renewable: auth?.renewable === true };
  }

  /** The caller's capabilities on `path`, asked with the caller's own token (root namespace). */
  async capabilities(token: string, path: string): Promise<string[]> {
    const res = await this.as(token).request('POST', 'sys/capabilities-self', { paths: [path] }, { rootNamespace: true });
    const body = res.body as { data?: Record<string, unknown>; capabilities?: unknown } | undefined;
    const caps = body?.data?.[path] ?? body?.data?.capabilities ?? body?.capabilities;
    return Array.isArray(caps) ? caps.map(String) : [];
  }

  /**
   * GET sys/storage/raft/snapshot, spooled to the scratch directory: Vault streams the archive
   * without announcing its length, and targets need it before the upload (local_max_space, the
   * deadline). The spool is removed once the stream is consumed or destroyed.
   */
  async openSnapshot(token: string, signal: AbortSignal): Promise<SnapshotArchive> {
    const first = await this.activeNodeSnapshotUrl(new URL(`${this.address.replace(/\/+$/, '')}/v1/sys/storage/raft/snapshot`), signal);
    let res = await this.getSnapshot(first, token, signal).catch((e: Error) => {
      if (first.origin === new URL(this.address).origin) throw e;
      throw new Error(`the active node ${first.origin} that ${this.address} names (sys/leader) did not answer: ${e.message}`);
    });
    // A standby always redirects the snapshot path to the active node (Vault's and OpenBao's
    // handlers): followed once, never from https to http (the token would cross in the clear).
    if (res.statusCode === 307 || res.statusCode === 308) {
      const location = res.headers.location;
      await res.body.dump();
      if (typeof location !== 'string' || location === '') throw new Error(`GET sys/storage/raft/snapshot answered ${res.statusCode} without a Location`);
      const next = new URL(location, first);
      if (first.protocol === 'https:' && next.protocol !== 'https:')
        throw new Error(`GET sys/storage/raft/snapshot answered ${res.statusCode} to ${next.href}: refused, a redirect from https to http would send the token in the clear`);
      res = await this.getSnapshot(next, token, signal);
      if (res.statusCode === 307 || res.statusCode === 308) {
        await res.body.dump();
        throw new Error(`GET sys/storage/raft/snapshot was redirected twice (${first.href}, then ${next.href}): one redirect is followed, to the node the standby names`);
      }
    }
    if (res.statusCode !== 200) {
      const text = await res.body.text().catch(() => '');
      let errors = '';
      try {
        errors = ((JSON.parse(text) as { errors?: unknown[] }).errors ?? []).map(String).join('; ');
      } catch {
        errors = text.slice(0, 200);
      }
      throw new Error(`GET sys/storage/raft/snapshot answered status ${res.statusCode}${errors ? `: ${errors}` : ''}`);
    }
    const file = join(this.scratchDir, `${randomUUID()}.snap`);
    // A 200 is sent before the archive exists: a server failing mid-stream just ends the body. The
    // archive is verified as it is spooled (archive-verify.ts), and only a complete one goes on.
    const { tee, verdict } = verifyingTee();
    try {
      await pipeline(res.body, tee, createWriteStream(file, { flags: 'wx', mode: 0o600 }), { signal });
    } catch (e) {
      await rm(file, { force: true });
      throw new Error(`GET sys/storage/raft/snapshot broke off: ${(e as Error).message}`);
    }
    const v = await verdict;
    if (!v.ok) {
      await rm(file, { force: true });
      throw new Error(v.error);
    }
    const { size } = await stat(file);
    const stream = createReadStream(file);
    const removed = new Promise<void>((resolve) =>
      stream.once(
        'close',
        () =>
          void rm(file, { force: true }).then(
            () => resolve(),
            () => resolve(),
          ),
      ),
    );
    void removed;
    return { size, stream, done: Promise.resolve(), producerError: () => undefined };
  }

  /**
   * Where to read the snapshot: the active node. An OpenBao standby answers the snapshot read from its own raft
   * state, without redirecting or forwarding (measured on 2.7.2, test/real/snapshot-agent-raft.test.ts), and goes
   * on answering when it has lost the leader and quorum: its archive trails the cluster, and taken as a backup it
   * would be stored as a success. So a standby is asked who leads (sys/leader, unauthenticated) and the snapshot is
   * read from that node, by the same rule as a redirect (never https to http); a standby that names no leader fails
   * the attempt. A server without sys/leader, or that is not in HA mode, is read as it is (Vault's standbys 307).
   */
  private async activeNodeSnapshotUrl(url: URL, signal: AbortSignal): Promise<URL> {
    let leader: { ha_enabled?: unknown; is_self?: unknown; leader_address?: unknown };
    try {
      const res = await this.dispatcher.request({ origin: url.origin, path: `${new URL(this.address).pathname.replace(/\/+$/, '')}/v1/sys/leader`, method: 'GET', signal });
      if (res.statusCode !== 200) {
        await res.body.dump();
        return url;
      }
      leader = (await res.body.json()) as typeof leader;
    } catch {
      return url; // the snapshot read then fails with the server's own error
    }
    if (leader.ha_enabled !== true || leader.is_self === true) return url;
    const address = typeof leader.leader_address === 'string' ? leader.leader_address : '';
    if (address === '') {
      throw new Error(
        `${url.origin} is a standby that names no active node (sys/leader): a snapshot read from it would be its own copy, which may trail the cluster; no snapshot is taken until a leader is elected`,
      );
    }
    const next = new URL(`${address.replace(/\/+$/, '')}/v1/sys/storage/raft/snapshot`);
    if (url.protocol === 'https:' && next.protocol !== 'https:') {
      throw new Error(`${url.origin} is a standby whose leader is ${address}: refused, reading from it would send the token over plain http`);
    }
    return next;
  }

  private getSnapshot(url: URL, token: string, signal: AbortSignal) {
    return this.dispatcher.request({ origin: url.origin, path: `${url.pathname}${url.search}`, method: 'GET', headers: { 'x-vault-token': token }, signal });
  }

  /**
   * Why an attempt should not read the archive now (health first), or undefined: the managed
   * server reports itself sealed or not initialized. A health read that fails says nothing: the
   * attempt then fails on its own, with the server's own error.
   */
  async notReady(): Promise<string | undefined> {
    try {
      const h = await this.health('?standbyok=true&perfstandbyok=true&sealedcode=200&uninitcode=200');
      const b = (h.body ?? {}) as { sealed?: unknown; initialized?: unknown };
      if (b.sealed === true) return `${this.address} reports sealed (sys/health)`;
      if (b.initialized === false) return `${this.address} reports not initialized (sys/health)`;
    } catch {
      // see above
    }
    return undefined;
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}
