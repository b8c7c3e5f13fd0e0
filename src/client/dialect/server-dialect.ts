// Which names a server speaks. Apart from the client options so code that only validates a dialect
// (the Terraform provider's schema and validate calls) does not load the HTTP stack.

/** keyward: the seed's names (the embedded engine); vault: Vault Enterprise / OpenBao names. */
export type ServerDialect = 'keyward' | 'vault';
export const SERVER_DIALECTS: readonly ServerDialect[] = ['keyward', 'vault'];
