// A token as the store keeps it. Service tokens are persisted under a hash of their id; batch
// tokens carry this record themselves, encrypted.

export type TokenType = 'service' | 'batch';

export interface TokenEntry {
  /** The secret token id; held in memory only, never persisted for service tokens. */
  id: string;
  accessor: string;
  type: TokenType;
  policies: string[];
  /** "auth/cloud/login", "auth/token/create", ... */
  path: string;
  meta: Record<string, string>;
  displayName: string;
  namespaceId: string;
  /** Uses left; 0 = unlimited; -1 = exhausted (its last use is running; revoked right after). */
  numUses: number;
  /** ms since epoch. */
  creationTime: number;
  /** ms since epoch of the current expiry; 0 = never (root). */
  expireTime: number;
  /** Seconds. */
  ttl: number;
  /** Role/mount max TTL in seconds used to cap renewals; 0 = the system max. */
  maxTtl: number;
  explicitMaxTtl: number;
  period: number;
  boundCidrs: string[];
  renewable: boolean;
  orphan: boolean;
  entityId: string;
  /** Mount accessor of the auth method that issued it ("" for token store). */
  mountAccessor: string;
  /** Id of the parent token's accessor, for revocation trees. */
  parentAccessor: string;
  noDefaultPolicy: boolean;
  /** ms since epoch of the last successful renewal; 0 or absent = never renewed. */
  lastRenewalTime?: number;
  /** What the issuing auth method recorded for its renewal checks; never shown to clients. */
  internal?: Record<string, string>;
}
