// Validation rules of KeywardServer props (see validation.ts for how rules run).

import type { KeywardServerProps } from './keyward-server';
import { type ValidationRule, unknownProps, when } from './validation';

export interface KeywardServerInput {
  readonly props: KeywardServerProps;
  /** The other KeywardServers already in the same stack. */
  readonly others: readonly { path: string; alias?: string }[];
}

/** Every prop a KeywardServer knows; anything else is a misspelling. */
export const KNOWN_SERVER_PROPS = [
  'address',
  'snapshotAddress',
  'cloudPlugin',
  'namespace',
  'fingerprintSalt',
  'exclusiveSnapshotConfigs',
  'caCertFile',
  'skipTlsVerify',
  'secretVersion',
  'dialect',
  'alias',
] as const;

function urlProblem(prop: string, a: string): string | undefined {
  try {
    const u = new URL(a);
    return u.protocol === 'http:' || u.protocol === 'https:' ? undefined : `${prop} ${JSON.stringify(a)} must use http or https`;
  } catch {
    return `${prop} ${JSON.stringify(a)} is not a URL (expected a form like https://vault.example.com:8200)`;
  }
}

export const keywardServerRules: readonly ValidationRule<KeywardServerInput>[] = [
  { id: 'unknown-props', check: ({ props }) => unknownProps(props, KNOWN_SERVER_PROPS) },
  {
    id: 'one-per-alias',
    check: ({ props, others }) => {
      const clash = others.find((o) => o.alias === props.alias);
      if (!clash) return [];
      return [
        props.alias === undefined
          ? `a stack holds one KeywardServer without alias; ${clash.path} is already defined: give this one an alias (a provider alias, e.g. alias: "dr") or use another TerraformStack per server`
          : `alias ${JSON.stringify(props.alias)} is already used by ${clash.path}: each KeywardServer of a stack needs its own alias`,
      ];
    },
  },
  {
    id: 'alias-format',
    check: ({ props }) =>
      when(props.alias, (a) =>
        /^[a-z][a-z0-9_-]*$/.test(a) ? undefined : `alias ${JSON.stringify(a)} must be a Terraform name: lower-case letters, digits, "_" or "-", starting with a letter`,
      ),
  },
  { id: 'address-url', check: ({ props }) => when(props.address, (a) => urlProblem('address', a)) },
  { id: 'snapshot-address-url', check: ({ props }) => when(props.snapshotAddress, (a) => urlProblem('snapshotAddress', a)) },
  {
    id: 'cloud-plugin-name',
    check: ({ props }) =>
      when(props.cloudPlugin, (p) =>
        /^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(p) ? undefined : `cloudPlugin ${JSON.stringify(p)} must be a plugin name such as "gcp" or "vault-plugin-auth-gcp"`,
      ),
  },
  {
    id: 'namespace-format',
    check: ({ props }) =>
      when(props.namespace, (ns) => (/^[\w.-]+(\/[\w.-]+)*\/?$/.test(ns) ? undefined : `namespace ${JSON.stringify(ns)} must be a path like "team-a" or "team-a/dev"`)),
  },
  {
    id: 'dialect-value',
    check: ({ props }) =>
      when(props.dialect, (d) => (d === 'keyward' || d === 'vault' ? undefined : `dialect ${JSON.stringify(d)} must be "keyward" or "vault" (or left out to detect it)`)),
  },
  {
    id: 'salt-length',
    check: ({ props }) => when(props.fingerprintSalt, (s) => (s.length >= 16 ? undefined : 'fingerprintSalt must be at least 16 characters')),
  },
];
