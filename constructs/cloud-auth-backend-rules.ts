// Validation rules of CloudAuthBackend props; the field rules come from src/schema/cloud-config.ts
// so the construct refuses exactly what the server would.

import { LISTING_VISIBILITY, MOUNT_PATH, MOUNT_TOKEN_TYPES } from '../src/schema/auth-mount-fields';
import { cloudConfigProblems } from '../src/schema/cloud-config-fields';
import { parseDurationSeconds } from '../src/schema/duration';
import { ApiError } from '../src/schema/errors';
import { CUSTOM_ENDPOINT_KEYS, parseMetadataList, parseServiceAccountKey, validateAlias, validateEndpoint } from '../src/schema/cloud-config';
import type { CloudAuthBackendProps } from './cloud-auth-backend';
import { KeywardServer } from './keyward-server';
import { isUnsetSecret } from './secret';
import { RemovalPolicy } from './manifest-parts';
import { type ValidationRule, closest, concreteItems, fractionalSeconds, isToken, sameStack, unknownProps, when } from './validation';

export interface CloudAuthBackendInput {
  readonly props: CloudAuthBackendProps;
  /** Problems found while binding secret props (see secret.ts). */
  readonly secretProblems: readonly string[];
  /** Path of another backend on the same server with the same mount path. */
  readonly clash?: string;
}

/** Runs a schema helper that throws ApiError; returns its messages instead. */
export function schemaProblems(fn: () => unknown, prefix = ''): string[] {
  try {
    fn();
    return [];
  } catch (e) {
    if (ApiError.isApiError(e)) return e.errors.map((m) => prefix + m);
    throw e;
  }
}

/** Every prop a CloudAuthBackend (and its config) knows; anything else is a misspelling. */
export const KNOWN_BACKEND_PROPS = [
  'server',
  'path',
  'description',
  'config',
  'removalPolicy',
  'exclusiveRoles',
  'local',
  'defaultLeaseTtl',
  'maxLeaseTtl',
  'tokenType',
  'listingVisibility',
  'movedFrom',
] as const;
export const KNOWN_CONFIG_PROPS = [
  'credentials',
  'iamAlias',
  'iamMetadata',
  'vmAlias',
  'vmMetadata',
  'customEndpoints',
  'serviceAccountEmail',
  'identityTokenAudience',
  'identityTokenTtl',
  'rotationPeriod',
  'rotationSchedule',
  'rotationWindow',
  'disableAutomatedRotation',
] as const;

/** A duration prop's problem, if any (tokens are not validated). */
function durationProblem(name: string, v: unknown): string[] {
  if (v === undefined || isToken(v)) return [];
  const fraction = fractionalSeconds(name, v);
  if (fraction.length > 0) return fraction;
  try {
    parseDurationSeconds(v);
    return [];
  } catch (e) {
    return [`${name}: ${(e as Error).message}`];
  }
}

export const cloudAuthBackendRules: readonly ValidationRule<CloudAuthBackendInput>[] = [
  {
    id: 'unknown-props',
    check: ({ props }) => [...unknownProps(props, KNOWN_BACKEND_PROPS), ...unknownProps(props.config, KNOWN_CONFIG_PROPS, 'config.')],
  },
  {
    id: 'server-required',
    check: ({ props }) => (KeywardServer.isKeywardServer(props.server) ? [] : ['server must be a KeywardServer construct']),
  },
  { id: 'server-same-stack', check: ({ props }, scope) => (KeywardServer.isKeywardServer(props.server) ? sameStack(scope, props.server, 'server') : []) },
  {
    id: 'path-format',
    check: ({ props }) => {
      if (props.path === undefined) return [];
      if (isToken(props.path)) return ['path must be known at synth time (it identifies the mount), not a Terraform token'];
      return MOUNT_PATH.test(props.path) ? [] : [`path ${JSON.stringify(props.path)} must be a mount path like "cloud" or "team/cloud" (no leading or trailing "/")`];
    },
  },
  {
    id: 'moved-from-format',
    check: ({ props }) =>
      when(props.movedFrom, (m) =>
        MOUNT_PATH.test(m) ? undefined : `movedFrom ${JSON.stringify(m)} must be a mount path like "cloud" or "team/cloud" (no leading or trailing "/")`,
      ),
  },
  {
    id: 'path-unique',
    check: ({ props, clash }) => (clash ? [`path ${JSON.stringify(props.path ?? 'cloud')} is already mounted on this server by ${clash}`] : []),
  },
  { id: 'secrets', check: ({ secretProblems }) => secretProblems },
  {
    id: 'credentials-format',
    check: ({ props }) => when(props.config?.credentials, (c) => (isUnsetSecret(c) ? undefined : schemaProblems(() => parseServiceAccountKey(c), 'config.credentials: ')[0])),
  },
  {
    id: 'alias-values',
    check: ({ props }) => [
      ...when(props.config?.iamAlias, (a) => schemaProblems(() => validateAlias(a, 'iam'))[0]),
      ...when(props.config?.vmAlias, (a) => schemaProblems(() => validateAlias(a, 'vm'))[0]),
    ],
  },
  {
    id: 'metadata-names',
    check: ({ props }) => [
      ...(props.config?.iamMetadata && !isToken(props.config.iamMetadata)
        ? schemaProblems(() => parseMetadataList(concreteItems(props.config?.iamMetadata), 'iam'), 'config.iamMetadata: ')
        : []),
      ...(props.config?.vmMetadata && !isToken(props.config.vmMetadata)
        ? schemaProblems(() => parseMetadataList(concreteItems(props.config?.vmMetadata), 'vm'), 'config.vmMetadata: ')
        : []),
    ],
  },
  {
    id: 'custom-endpoints',
    check: ({ props }) => {
      const eps = props.config?.customEndpoints;
      if (!eps) return [];
      return Object.entries(eps).flatMap(([k, v]) => {
        if (!(CUSTOM_ENDPOINT_KEYS as readonly string[]).includes(k)) {
          const hint = closest(k, CUSTOM_ENDPOINT_KEYS);
          return [`config.customEndpoints: unknown key ${JSON.stringify(k)}${hint ? ` (did you mean ${hint}?)` : ''} (use ${CUSTOM_ENDPOINT_KEYS.join(', ')})`];
        }
        return when(v as string | undefined, (url) => schemaProblems(() => validateEndpoint(k, url), 'config.customEndpoints: ')[0]);
      });
    },
  },
  {
    id: 'durations',
    check: ({ props }) => [
      ...durationProblem('defaultLeaseTtl', props.defaultLeaseTtl),
      ...durationProblem('maxLeaseTtl', props.maxLeaseTtl),
      ...durationProblem('config.identityTokenTtl', props.config?.identityTokenTtl),
      ...durationProblem('config.rotationPeriod', props.config?.rotationPeriod),
      ...durationProblem('config.rotationWindow', props.config?.rotationWindow),
    ],
  },
  {
    id: 'mount-tune-values',
    check: ({ props }) => [
      ...when(props.tokenType as string | undefined, (t) =>
        (MOUNT_TOKEN_TYPES as readonly string[]).includes(t) ? undefined : `tokenType must be one of ${MOUNT_TOKEN_TYPES.join(', ')} (got ${JSON.stringify(t)})`,
      ),
      ...when(props.listingVisibility as string | undefined, (t) =>
        (LISTING_VISIBILITY as readonly string[]).includes(t) ? undefined : `listingVisibility must be "unauth" or "hidden" (got ${JSON.stringify(t)})`,
      ),
    ],
  },
  {
    // Vault's rules (path_config.go, pluginidentityutil, automatedrotationutil) on the known values.
    id: 'wif-and-rotation',
    check: ({ props }) => {
      const c = props.config;
      if (!c) return [];
      const known = (v: unknown) => (v === undefined || isToken(v) ? undefined : v);
      const seconds = (v: unknown) => {
        try {
          return known(v) === undefined ? 0 : parseDurationSeconds(v);
        } catch {
          return 0;
        }
      };
      const fields = {
        service_account_email: known(c.serviceAccountEmail) ?? (isToken(c.serviceAccountEmail) ? 'token' : ''),
        identity_token_audience: known(c.identityTokenAudience) ?? '',
        rotation_schedule: known(c.rotationSchedule) ?? (isToken(c.rotationSchedule) ? 'token' : ''),
        rotation_period: seconds(c.rotationPeriod),
        rotation_window: seconds(c.rotationWindow),
      };
      const names: Record<string, string> = {
        service_account_email: 'config.serviceAccountEmail',
        identity_token_audience: 'config.identityTokenAudience',
        credentials: 'config.credentials',
        rotation_schedule: 'config.rotationSchedule',
        rotation_period: 'config.rotationPeriod',
        rotation_window: 'config.rotationWindow',
      };
      return cloudConfigProblems(fields, 'credentials' in c).map((m) => m.replace(/\b[a-z_]+\b/g, (w) => names[w] ?? w));
    },
  },
  {
    id: 'removal-policy',
    check: ({ props }) =>
      props.removalPolicy === undefined || Object.values(RemovalPolicy).includes(props.removalPolicy)
        ? []
        : [`removalPolicy must be RemovalPolicy.DESTROY or RemovalPolicy.RETAIN (got ${JSON.stringify(props.removalPolicy)})`],
  },
];
