// Validation rules of CloudAuthBackend props; the field rules come from src/schema/cloud-config.ts
// so the construct refuses exactly what the server would.

import { ApiError } from '../src/schema/errors';
import { CUSTOM_ENDPOINT_KEYS, parseMetadataList, parseServiceAccountKey, validateAlias, validateEndpoint } from '../src/schema/cloud-config';
import type { CloudAuthBackendProps } from './cloud-auth-backend';
import { KeywardServer } from './keyward-server';
import { RemovalPolicy } from './manifest-parts';
import { type ValidationRule, closest, concreteItems, isToken, sameStack, unknownProps, when } from './validation';

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

const MOUNT_PATH = /^[\w.-]+(\/[\w.-]+)*$/;

/** Every prop a CloudAuthBackend (and its config) knows; anything else is a misspelling. */
export const KNOWN_BACKEND_PROPS = ['server', 'path', 'description', 'config', 'removalPolicy', 'exclusiveRoles'] as const;
export const KNOWN_CONFIG_PROPS = ['credentials', 'iamAlias', 'iamMetadata', 'vmAlias', 'vmMetadata', 'customEndpoints'] as const;

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
    id: 'path-unique',
    check: ({ props, clash }) => (clash ? [`path ${JSON.stringify(props.path ?? 'cloud')} is already mounted on this server by ${clash}`] : []),
  },
  { id: 'secrets', check: ({ secretProblems }) => secretProblems },
  {
    id: 'credentials-format',
    check: ({ props }) =>
      when(props.config?.credentials, (c) => schemaProblems(() => parseServiceAccountKey(c), 'config.credentials: ')[0]),
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
    id: 'removal-policy',
    check: ({ props }) =>
      props.removalPolicy === undefined || Object.values(RemovalPolicy).includes(props.removalPolicy)
        ? []
        : [`removalPolicy must be RemovalPolicy.DESTROY or RemovalPolicy.RETAIN (got ${JSON.stringify(props.removalPolicy)})`],
  },
];
