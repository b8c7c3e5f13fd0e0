// Plugin identity tokens (Vault's plugin workload identity): one RSA signing key per namespace,
// kept in the sealed store like other secrets and rotatable; tokens name the mount that asks
// (sub plugin-identity:<namespace id>:auth:<accessor>), carry its audience and lifetime, and are
// verifiable by anyone through the issuer's OpenID discovery document and JWKS.

import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import { randomBytes } from 'node:crypto';
import type { MountInfo, NamespaceRef, PluginIdentityTokens } from '../backend';
import type { Clock } from '../clock';
import type { JsonStore } from '../storage/json-store';

const ALG = 'RS256';
/** How long a rotated-out key stays in the JWKS (Vault's default verification_ttl: 24 h). */
export const DEFAULT_VERIFICATION_TTL_SECONDS = 86_400;

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

export class PluginIdentity implements PluginIdentityTokens {
  private readonly loaded = new Map<string, Promise<{ ring: Keyring; key: SigningKey }>>();

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

  private keyName(ns: NamespaceRef) {
    return `sys/plugin-identity/${ns.id}`;
  }

  private async newKey(): Promise<StoredKey> {
    const { privateKey, publicKey } = await generateKeyPair(ALG, { modulusLength: 2048, extractable: true });
    const kid = randomBytes(16).toString('hex');
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: ALG, use: 'sig' };
    return { kid, privateJwk: await exportJWK(privateKey), publicJwk, created: this.clock.now() };
  }

  private ring(ns: NamespaceRef): Promise<{ ring: Keyring; key: SigningKey }> {
    let p = this.loaded.get(ns.id);
    if (!p) {
      p = (async () => {
        let ring = await this.store.get<Keyring>(this.keyName(ns));
        if (!ring) {
          ring = { current: await this.newKey(), previous: [] };
          await this.store.put(this.keyName(ns), ring);
        }
        return { ring, key: await importJWK(ring.current.privateJwk, ALG) };
      })();
      // A failed load is retried on the next call rather than cached.
      p.catch(() => this.loaded.delete(ns.id));
      this.loaded.set(ns.id, p);
    }
    return p;
  }

  /** Signs a token for a mount; `ttlSeconds` is its lifetime. */
  async sign(mount: MountInfo, audience: string, ttlSeconds: number): Promise<string> {
    const { ring, key } = await this.ring(mount.namespace);
    const now = Math.floor(this.clock.now() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: ALG, kid: ring.current.kid, typ: 'JWT' })
      .setIssuer(this.issuer(mount.namespace))
      .setSubject(`plugin-identity:${mount.namespace.id}:auth:${mount.accessor}`)
      .setAudience(audience)
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(now + Math.max(1, ttlSeconds))
      .sign(key);
  }

  /** The namespace's published keys: the current one and rotated-out ones still in their verification window. */
  async jwks(ns: NamespaceRef): Promise<{ keys: JWK[] }> {
    const { ring } = await this.ring(ns);
    const now = this.clock.now();
    return { keys: [ring.current.publicJwk, ...ring.previous.filter((p) => p.until > now).map((p) => p.publicJwk)] };
  }

  /** Replaces the signing key; the old public key stays published for `verificationTtlSeconds`. */
  async rotate(ns: NamespaceRef, verificationTtlSeconds = DEFAULT_VERIFICATION_TTL_SECONDS): Promise<{ kid: string }> {
    const { ring } = await this.ring(ns);
    const now = this.clock.now();
    const next: Keyring = {
      current: await this.newKey(),
      previous: [
        { kid: ring.current.kid, publicJwk: ring.current.publicJwk, until: now + verificationTtlSeconds * 1000 },
        ...ring.previous.filter((p) => p.until > now),
      ],
    };
    await this.store.put(this.keyName(ns), next);
    this.loaded.set(ns.id, Promise.resolve({ ring: next, key: await importJWK(next.current.privateJwk, ALG) }));
    return { kid: next.current.kid };
  }

  /** Drops cached keys (after a snapshot restore replaced the store). */
  clearCache(): void {
    this.loaded.clear();
  }
}
