// Validation rules of KeywardServer props (see validation.ts for how rules run).

import type { KeywardServerProps } from './keyward-server';
import { type ValidationRule, unknownProps, when } from './validation';

export interface KeywardServerInput {
  readonly props: KeywardServerProps;
  /** Path of another KeywardServer already in the same stack, if any. */
  readonly existing?: string;
}

/** Every prop a KeywardServer knows; anything else is a misspelling. */
export const KNOWN_SERVER_PROPS = ['address', 'snapshotAddress', 'cloudPlugin', 'namespace', 'fingerprintSalt', 'exclusiveSnapshotConfigs', 'caCertFile', 'skipTlsVerify', 'secretVersion', 'dialect'] as const;

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
    id: 'one-per-stack',
    check: ({ existing }) =>
      existing ? [`a stack holds one KeywardServer (its manifest is per server); ${existing} is already defined: use another TerraformStack per server`] : [],
  },
  { id: 'address-url', check: ({ props }) => when(props.address, (a) => urlProblem('address', a)) },
  { id: 'snapshot-address-url', check: ({ props }) => when(props.snapshotAddress, (a) => urlProblem('snapshotAddress', a)) },
  {
    id: 'cloud-plugin-name',
    check: ({ props }) =>
      when(props.cloudPlugin, (p) => (/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(p) ? undefined : `cloudPlugin ${JSON.stringify(p)} must be a plugin name such as "gcp" or "vault-plugin-auth-gcp"`)),
  },
  {
    id: 'namespace-format',
    check: ({ props }) =>
      when(props.namespace, (ns) =>
        /^[\w.-]+(\/[\w.-]+)*\/?$/.test(ns) ? undefined : `namespace ${JSON.stringify(ns)} must be a path like "team-a" or "team-a/dev"`,
      ),
  },
  {
    id: 'dialect-value',
    check: ({ props }) =>
      when(props.dialect, (d) => (d === 'keyward' || d === 'vault' ? undefined : `dialect ${JSON.stringify(d)} must be "keyward" or "vault" (or left out to detect it)`)),
  },
  {
    id: 'salt-length',
    check: ({ props }) =>
      when(props.fingerprintSalt, (s) => (s.length >= 16 ? undefined : 'fingerprintSalt must be at least 16 characters')),
  },
];
