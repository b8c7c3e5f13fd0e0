// Plugin identity tokens (Vault's plugin workload identity): one RSA signing key per namespace,
// kept in the sealed store like other secrets; tokens name the mount that asks (sub
// plugin-identity:<namespace id>:auth:<accessor>), carry its audience and lifetime, and are
// verifiable by anyone through the issuer's OpenID discovery document and JWKS.
//
// Bounded as Vault bounds them: the key rotates every rotation_period (24 h, Vault's default for
// its default key; checked whenever it is about to sign, so a key never signs past its period), a
// rotated-out key stays published for verification_ttl (24 h), and no token may live longer than
// verification_ttl, so every token verifies until it expires and no longer. Keys are made when a
// namespace first signs, never by a read of its (unauthenticated) JWKS, and deleted with it.

import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import { randomBytes } from 'node:crypto';
import type { MountInfo, NamespaceRef, PluginIdentityTokens } from '../route-family';
import type { Clock } from '../clock';
import type { JsonStore } from '../storage/json-store';
import { KeyedLock } from '../keyed-lock';

const ALG = 'RS256';
/** How long a rotated-out key stays in the JWKS (Vault's default verification_ttl: 24 h). */
export const DEFAULT_VERIFICATION_TTL_SECONDS = 86_400;
/** How long a key signs before it is replaced (Vault's default rotation_period: 24 h). */
export const ROTATION_PERIOD_SECONDS = 86_400;

interface StoredKey {
  kid: string;
  privateJwk: JWK;
  publicJwk: JWK;
  created: number;
}

interface Keyring {
  current: StoredKey;
  /** Rotated-out public keys, published until tokens they signed can no longer be valid. */
  previous: { kid: string; publicJwk: JWK; until: number }[];
}

type SigningKey = Awaited<ReturnType<typeof importJWK>>;
type Loaded = { ring: Keyring; key: SigningKey };

export class PluginIdentity implements PluginIdentityTokens {
  private readonly loaded = new Map<string, Loaded>();
  /** Per namespace: loading, creating, rotating and deleting its keyring run one at a time. */
  private readonly lock = new KeyedLock();

  constructor(
    /** Root view; keys live under sys/plugin-identity/<namespace id>. */
    private readonly store: JsonStore,
    private readonly clock: Clock,
    /** The address clients and providers reach this engine at (Vault's api_addr). */
    private readonly apiAddr: () => string,
  ) {}

  /** The issuer of a namespace's tokens: <api_addr>/v1/<namespace path>identity/oidc/plugins. */
  issuer(ns: NamespaceRef): string {
    return `${this.apiAddr().replace(/\/+$/, '')}/v1/${ns.path}identity/oidc/plugins`;
  }

  /** The longest lifetime a token may be given: the key's verification_ttl. */
  maxTtlSeconds(): number {
    return DEFAULT_VERIFICATION_TTL_SECONDS;
  }

  private keyName(ns: NamespaceRef) {
    return `sys/plugin-identity/${ns.id}`;
  }

  private async newKey(): Promise<StoredKey> {
    const { privateKey, publicKey } = await generateKeyPair(ALG, { modulusLength: 2048, extractable: true });
    const kid = randomBytes(16).toString('hex');
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: ALG, use: 'sig' };
    return { kid, privateJwk: await exportJWK(privateKey), publicJwk, created: this.clock.now() };
  }

  private async remember(ns: NamespaceRef, ring: Keyring): Promise<Loaded> {
    const loaded = { ring, key: await importJWK(ring.current.privateJwk, ALG) };
    this.loaded.set(ns.id, loaded);
    return loaded;
  }

  /** The stored keyring, or undefined when the namespace never signed (call under the lock). */
  private async existing(ns: NamespaceRef): Promise<Loaded | undefined> {
    const cached = this.loaded.get(ns.id);
    if (cached) return cached;
    const ring = await this.store.get<Keyring>(this.keyName(ns));
    return ring ? this.remember(ns, ring) : undefined;
  }

  /** Replaces the current key (call under the lock); the old one stays published for `verificationTtlSeconds`. */
  private async replace(ns: NamespaceRef, ring: Keyring | undefined, verificationTtlSeconds: number): Promise<Loaded> {
    const now = this.clock.now();
    const next: Keyring = {
      current: await this.newKey(),
      previous: ring
        ? [{ kid: ring.current.kid, publicJwk: ring.current.publicJwk, until: now + verificationTtlSeconds * 1000 }, ...ring.previous.filter((p) => p.until > now)]
        : [],
    };
    await this.store.put(this.keyName(ns), next);
    return this.remember(ns, next);
  }

  /** The key to sign with now: made at first use, rotated once it has signed for its period. */
  private signingKey(ns: NamespaceRef): Promise<Loaded> {
    return this.lock.run(ns.id, async () => {
      const loaded = await this.existing(ns);
      if (loaded && this.clock.now() - loaded.ring.current.created < ROTATION_PERIOD_SECONDS * 1000) return loaded;
      return this.replace(ns, loaded?.ring, DEFAULT_VERIFICATION_TTL_SECONDS);
    });
  }

  /**
   * Signs a token for a mount; `ttlSeconds` is its lifetime, capped at the key's verification_ttl.
   * Config writes refuse a longer identity_token_ttl; the cap covers configs stored before that
   * rule, which keep logging in with tokens of the longest lifetime allowed.
   */
  async sign(mount: MountInfo, audience: string, ttlSeconds: number): Promise<string> {
    const ttl = Math.min(Math.max(1, ttlSeconds), this.maxTtlSeconds());
    const { ring, key } = await this.signingKey(mount.namespace);
    const now = Math.floor(this.clock.now() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: ALG, kid: ring.current.kid, typ: 'JWT' })
      .setIssuer(this.issuer(mount.namespace))
      .setSubject(`plugin-identity:${mount.namespace.id}:auth:${mount.accessor}`)
      .setAudience(audience)
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(now + ttl)
      .sign(key);
  }

  /** The namespace's published keys: the current one and rotated-out ones still in their verification window; none before it first signs. */
  async jwks(ns: NamespaceRef): Promise<{ keys: JWK[] }> {
    const loaded = await this.lock.run(ns.id, () => this.existing(ns));
    if (!loaded) return { keys: [] };
    const now = this.clock.now();
    return { keys: [loaded.ring.current.publicJwk, ...loaded.ring.previous.filter((p) => p.until > now).map((p) => p.publicJwk)] };
  }

  /** Replaces the signing key; the old public key stays published for `verificationTtlSeconds`. */
  async rotate(ns: NamespaceRef, verificationTtlSeconds = DEFAULT_VERIFICATION_TTL_SECONDS): Promise<{ kid: string }> {
    const next = await this.lock.run(ns.id, async () => this.replace(ns, (await this.existing(ns))?.ring, verificationTtlSeconds));
    return { kid: next.ring.current.kid };
  }

  /** Deletes a namespace's keys (the namespace is being deleted). */
  forget(ns: NamespaceRef): Promise<void> {
    return this.lock.run(ns.id, async () => {
      await this.store.delete(this.keyName(ns));
      this.loaded.delete(ns.id);
    });
  }

  /** Drops cached keys (after a snapshot restore replaced the store). */
  clearCache(): void {
    this.loaded.clear();
  }
}
