// What an auth method hands the token store after a successful login: who logged in, which token
// settings apply, and the identity alias. The core creates the token and builds the `auth` block.

export type TokenTypeSetting = 'service' | 'batch' | 'default';

/** The role's token_* settings, canonical (seconds, lists). */
export interface TokenSettings {
  policies: string[];
  ttl: number;
  maxTtl: number;
  explicitMaxTtl: number;
  period: number;
  numUses: number;
  boundCidrs: string[];
  noDefaultPolicy: boolean;
  type: TokenTypeSetting;
}

export interface LoginResult {
  /** Appended to "<mount path with / replaced by ->-" to form the token's display name. */
  displayName: string;
  settings: TokenSettings;
  /** Token metadata, also the alias metadata (all values strings). */
  metadata: Record<string, string>;
  alias: { name: string; metadata: Record<string, string> };
  /** Group alias names such as project-p1, folder-123, organization-456. */
  groupAliases?: string[];
  /** Kept with the token for the method's renewal checks (how it was obtained); never shown. */
  internal?: Record<string, string>;
  /** Extra warnings for the login response. */
  warnings?: string[];
}

/** What a method's renew hook answers: the role's current lifetime settings. */
export interface RenewDecision {
  ttl: number;
  maxTtl: number;
  period: number;
}
