// Validation rules of SnapshotAutoConfig props; required fields per storage type come from the wire
// field table (src/schema/snapshot-config.ts) so construct and server agree.

import { parseDurationSeconds } from '../src/schema/duration';
import { fieldsForStorageType, isStorageType, snapshotConfigNameProblem } from '../src/schema/snapshot-config';
import { KeywardServer } from './keyward-server';
import { RemovalPolicy } from './manifest-parts';
import type { SnapshotAutoConfigProps } from './snapshot-auto-config';
import { type ValidationRule, fractionalSeconds, isToken, sameStack, unknownProps, when } from './validation';

export interface SnapshotAutoConfigInput {
  readonly props: SnapshotAutoConfigProps;
  readonly configName: string;
  readonly secretProblems: readonly string[];
  /** Path of another config on the same server with the same name. */
  readonly clash?: string;
}

/** Wire field name -> the option that sets it, for messages in the caller's vocabulary. */
const OPTION_NAMES: Record<string, string> = {
  local_max_space: 'SnapshotStorage.local({ maxSpaceBytes })',
  cloudone_bucket: 'SnapshotStorage.cloudOne({ bucket })',
  cloudone_region: 'SnapshotStorage.cloudOne({ region })',
  cloudtwo_bucket: 'SnapshotStorage.cloudTwo({ bucket })',
  cloudthree_container_name: 'SnapshotStorage.cloudThree({ containerName })',
  cloudthree_account_name: 'SnapshotStorage.cloudThree({ accountName })',
  cloudthree_account_key: 'SnapshotStorage.cloudThree({ accountKey })',
};

/** Fields sent in HTTP headers to the object store (credentials), by the option that sets each. */
const HEADER_VALUES: Record<string, string> = {
  cloudone_access_key_id: 'SnapshotStorage.cloudOne({ accessKeyId })',
  cloudone_secret_access_key: 'SnapshotStorage.cloudOne({ secretAccessKey })',
  cloudone_session_token: 'SnapshotStorage.cloudOne({ sessionToken })',
  cloudthree_account_name: 'SnapshotStorage.cloudThree({ accountName })',
  cloudthree_account_key: 'SnapshotStorage.cloudThree({ accountKey })',
  cloudthree_client_id: 'SnapshotStorage.cloudThree({ clientId })',
};

const storageOf = (p: SnapshotAutoConfigProps) => (p.storage && isStorageType(p.storage.storageType) ? p.storage : undefined);

/** Every prop a SnapshotAutoConfig knows; anything else is a misspelling. */
export const KNOWN_SNAPSHOT_PROPS = ['server', 'configName', 'interval', 'retain', 'pathPrefix', 'filePrefix', 'autoloadEnabled', 'storage', 'removalPolicy'] as const;

export const snapshotAutoConfigRules: readonly ValidationRule<SnapshotAutoConfigInput>[] = [
  { id: 'unknown-props', check: ({ props }) => unknownProps(props, KNOWN_SNAPSHOT_PROPS) },
  {
    id: 'server-required',
    check: ({ props }) => (KeywardServer.isKeywardServer(props.server) ? [] : ['server must be a KeywardServer construct']),
  },
  { id: 'server-same-stack', check: ({ props }, scope) => (KeywardServer.isKeywardServer(props.server) ? sameStack(scope, props.server, 'server') : []) },
  {
    id: 'config-name',
    check: ({ props, configName }) => {
      if (isToken(props.configName)) return ['configName must be known at synth time (it identifies the config), not a Terraform token'];
      const p = snapshotConfigNameProblem(configName);
      return p ? [`configName: ${p}`] : [];
    },
  },
  { id: 'config-name-unique', check: ({ configName, clash }) => (clash ? [`configName ${JSON.stringify(configName)} is already used on this server by ${clash}`] : []) },
  {
    id: 'storage-choice',
    check: ({ props }) => (storageOf(props) ? [] : ['storage must be SnapshotStorage.local(...), .cloudOne(...), .cloudTwo(...) or .cloudThree(...)']),
  },
  {
    id: 'interval-syntax',
    check: ({ props }) => {
      if (props.interval === undefined) return ['interval is required (seconds or a duration string such as "1h")'];
      const fraction = fractionalSeconds('interval', props.interval);
      if (fraction.length > 0) return fraction;
      return when(props.interval, (v) => {
        try {
          return parseDurationSeconds(v) > 0 ? undefined : `interval must be positive (got ${JSON.stringify(v)})`;
        } catch (e) {
          return `interval: ${(e as Error).message}`;
        }
      });
    },
  },
  {
    id: 'retain-min',
    check: ({ props }) => when(props.retain, (r) => (Number.isInteger(r) && r >= 1 ? undefined : `retain must be a whole number >= 1 (got ${r})`)),
  },
  {
    id: 'required-per-storage-type',
    check: ({ props }) => {
      const s = storageOf(props);
      const out: string[] = [];
      if (props.pathPrefix === undefined || props.pathPrefix === '') out.push('pathPrefix is required');
      if (!s) return out;
      for (const spec of fieldsForStorageType(s.storageType)) {
        if (!spec.required || spec.owner === 'common') continue;
        const v = spec.secret ? s.secrets[spec.name] : s.fields[spec.name];
        if (isToken(v)) continue;
        const missing = v === undefined || v === '' || (spec.kind === 'int' && !(typeof v === 'number' && Number.isInteger(v) && v > 0));
        if (missing) {
          out.push(`${OPTION_NAMES[spec.name] ?? spec.name} is required for storage type ${s.storageType}${spec.kind === 'int' ? ' (a whole number of bytes > 0)' : ''}`);
        }
      }
      return out;
    },
  },
  // Rules of the embedded engine beyond Vault's (path_prefix's trailing "/", "/" in filePrefix or a
  // bucket name, blob environments, the interval cap) are checked by the engine at apply, not here:
  // the same stack also manages Vault, which accepts those values.
  {
    id: 'autoload',
    check: ({ props }) => (props.autoloadEnabled === true && storageOf(props)?.storageType === 'local' ? ['autoloadEnabled is not supported for local storage'] : []),
  },
  {
    id: 'cloudone-options',
    check: ({ props }) => {
      const s = storageOf(props);
      if (s?.storageType !== 'cloudone-store') return [];
      const out: string[] = [];
      if (s.fields.cloudone_enable_kms === true && s.fields.cloudone_server_side_encryption === true) {
        out.push('cloudOne: enableKms and serverSideEncryption are mutually exclusive');
      }
      if ((s.fields.cloudone_access_key_id === undefined) !== (s.secrets.cloudone_secret_access_key === undefined)) {
        out.push('cloudOne: accessKeyId and secretAccessKey must be set together');
      }
      return out;
    },
  },
  {
    id: 'cloudtwo-key-json',
    check: ({ props }) => {
      const s = storageOf(props);
      return when(s?.secrets.cloudtwo_service_account_key, (k) => {
        try {
          const v: unknown = JSON.parse(k);
          if (typeof v === 'object' && v !== null && !Array.isArray(v)) return undefined;
        } catch {
          // fall through: the message must not quote the secret
        }
        return 'cloudTwo: serviceAccountKey must be a JSON object (a service-account key file)';
      });
    },
  },
  {
    id: 'cloudthree-auth-mode',
    check: ({ props }) => {
      const s = storageOf(props);
      if (s?.storageType !== 'cloudthree-store') return [];
      const mode = s.fields.cloudthree_auth_mode ?? 'shared';
      if (isToken(mode)) return [];
      const out: string[] = [];
      if (!['shared', 'managed', 'environment'].includes(String(mode)))
        out.push(`cloudThree: authMode must be CloudThreeAuthMode.SHARED, MANAGED or ENVIRONMENT (got ${JSON.stringify(mode)})`);
      if (mode !== 'environment' && s.fields.cloudthree_account_name === undefined) out.push(`cloudThree: accountName is required with authMode ${String(mode)}`);
      if (mode === 'shared' && s.secrets.cloudthree_account_key === undefined && !s.givenSecrets.includes('cloudthree_account_key'))
        out.push('cloudThree: accountKey is required with authMode SHARED');
      if (mode === 'managed' && s.fields.cloudthree_client_id === undefined) out.push('cloudThree: clientId is required with authMode MANAGED');
      if (mode !== 'managed' && s.fields.cloudthree_client_id !== undefined) out.push('cloudThree: clientId is only used with authMode MANAGED');
      return out;
    },
  },
  {
    // Keys and secrets of the object stores travel in HTTP headers (signed, or as they are). A
    // character no header can carry (the `…` of a placeholder such as `AKIA…`) would pass synth and
    // the server's checks, then fail every snapshot with "Invalid character in header content".
    // Only that is checked: S3-compatible stores use other key shapes than AWS's. The value is
    // never quoted (it may be a secret); the position says where.
    id: 'header-safe',
    check: ({ props }) => {
      const s = storageOf(props);
      if (!s) return [];
      const values: Record<string, unknown> = { ...s.fields, ...s.secrets };
      return Object.entries(HEADER_VALUES).flatMap(([field, option]) =>
        when(values[field], (v) => {
          const at = typeof v === 'string' ? v.search(/[^\t\x20-\x7e]/) : -1;
          return at < 0 ? undefined : `${option} holds a character an HTTP header cannot carry (at position ${at + 1}; a placeholder such as "AKIA…"?): use the real value`;
        }),
      );
    },
  },
  { id: 'secrets', check: ({ secretProblems }) => secretProblems },
  {
    id: 'removal-policy',
    check: ({ props }) =>
      props.removalPolicy === undefined || Object.values(RemovalPolicy).includes(props.removalPolicy)
        ? []
        : [`removalPolicy must be RemovalPolicy.DESTROY or RemovalPolicy.RETAIN (got ${JSON.stringify(props.removalPolicy)})`],
  },
];
