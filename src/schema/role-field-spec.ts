// The shape of a role field table entry, and the record type a table describes: the engine's stored
// role (cloud-role-write.ts StoredRole) is this type of the role table, so a field added to the table
// is a field of the stored record, and a field the record names but the table lacks does not compile.

export type RoleType = 'iam' | 'vm';

export type RoleFieldKind = 'string' | 'bool' | 'int' | 'duration' | 'commaList' | 'labels';

export interface RoleFieldSpec<N extends string = string, K extends RoleFieldKind = RoleFieldKind> {
  name: N;
  kind: K;
  /** Create default as returned on read; undefined when the field is write-only or required. */
  default?: unknown;
  /**
   * A read leaves the field out when it holds this (Vault's path_role.go shows max_jwt_exp and the
   * bound_* lists only when set), so a read without it means this stored value, not the default.
   */
  readAbsent?: unknown;
  /** The role type a field belongs to; 'both' for common fields. */
  appliesTo: 'both' | RoleType;
  /** For deprecated fields: the field they fold into. */
  aliasOf?: string;
  /** Set-valued list (order-free, sorted on write). */
  set?: boolean;
  secret: false;
  /** Vault's name for the field (absent: spelled the same). */
  vault?: string;
  /** For the provider schema, the reference docs and the constructs (canonical fields only). */
  description?: string;
}

type Extra = Partial<Pick<RoleFieldSpec, 'default' | 'readAbsent' | 'aliasOf' | 'set' | 'vault' | 'description'>>;

/** One table entry; the name, kind and alias stay literal types, so the table's record type can be derived. */
export const roleField = <const N extends string, const K extends RoleFieldKind, const E extends Extra = Record<never, never>>(
  name: N,
  kind: K,
  appliesTo: RoleFieldSpec['appliesTo'],
  extra?: E,
): RoleFieldSpec<N, K> & E => ({ name, kind, appliesTo, secret: false, ...(extra as E) });

/** What a stored value of each kind is. */
interface KindValue {
  string: string;
  bool: boolean;
  int: number;
  duration: number;
  commaList: string[];
  labels: Record<string, string>;
}

/** The stored values of a table's canonical fields (deprecated aliases left out). */
export type CanonicalValues<T extends readonly RoleFieldSpec[]> = {
  [S in T[number] as S extends { aliasOf: string } ? never : S['name']]: KindValue[S['kind']];
};

/** The stored values of a table's deprecated aliases, each optional (kept only when the old name was used). */
export type AliasValues<T extends readonly RoleFieldSpec[]> = {
  [S in T[number] as S extends { aliasOf: string } ? S['name'] : never]?: KindValue[S['kind']];
};
