// Validation rules of CloudAuthRole props; field names and limits come from src/schema/cloud-role.ts
// and the canonical helpers (durations, CIDRs, labels) so the construct agrees with the server.

import { parseCidr } from '../src/schema/cidr';
import { LABEL_RE, MAX_JWT_EXP_LIMIT, ROLE_NAME_RE, TOKEN_TYPE_VALUES, TYPE_ONLY_FIELDS } from '../src/schema/cloud-role';
import { ROLE_FIELDS, type RoleType } from '../src/schema/cloud-role-fields';
import { parseDurationSeconds } from '../src/schema/duration';
import type { CloudAuthRoleProps, DurationValue, VmRoleProps } from './cloud-auth-role';
import { type ValidationRule, concreteItems, fractionalSeconds, isToken, sameStack, unknownProps, when } from './validation';

export interface CloudAuthRoleInput {
  readonly props: CloudAuthRoleProps;
  readonly roleName: string;
  /** The backend prop is a CloudAuthBackend. */
  readonly backendOk: boolean;
  /** Message when another role on the backend uses the same name. */
  readonly clash?: string;
}

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
const propsOf = (t: RoleType): Readonly<Record<string, string>> => Object.fromEntries(TYPE_ONLY_FIELDS[t].map((f) => [camel(f), f]));

/** Props that belong to one role type only (camelCase prop -> wire name), from the role field table. */
export const TYPE_ONLY_PROPS: Readonly<Record<RoleType, Readonly<Record<string, string>>>> = { iam: propsOf('iam'), vm: propsOf('vm') };

/** Duration props, from the role field table: common ones first, then type-specific (message order). */
const durations = ROLE_FIELDS.filter((f) => f.kind === 'duration' && !f.aliasOf);
const DURATION_PROPS: readonly string[] = [...durations.filter((f) => f.appliesTo === 'both'), ...durations.filter((f) => f.appliesTo !== 'both')].map((f) => camel(f.name));

/** Every prop a CloudAuthRole knows (either type); anything else is a misspelling. */
export const KNOWN_ROLE_PROPS = [
  'type',
  'backend',
  'roleName',
  'boundServiceAccounts',
  'boundProjects',
  'addGroupAliases',
  ...DURATION_PROPS.filter((p) => p !== 'maxJwtExp'),
  'tokenPolicies',
  'tokenBoundCidrs',
  'tokenNoDefaultPolicy',
  'tokenNumUses',
  'tokenType',
  ...Object.keys(TYPE_ONLY_PROPS.iam),
  ...Object.keys(TYPE_ONLY_PROPS.vm),
] as const;

function seconds(v: DurationValue | undefined): number | undefined {
  if (v === undefined || isToken(v)) return undefined;
  try {
    return parseDurationSeconds(v);
  } catch {
    return undefined;
  }
}

const raw = (p: CloudAuthRoleProps) => p as unknown as Record<string, unknown>;

export const cloudAuthRoleRules: readonly ValidationRule<CloudAuthRoleInput>[] = [
  { id: 'unknown-props', check: ({ props }) => unknownProps(props, KNOWN_ROLE_PROPS) },
  { id: 'backend-required', check: ({ backendOk }) => (backendOk ? [] : ['backend must be a CloudAuthBackend construct']) },
  { id: 'backend-same-stack', check: ({ props, backendOk }, scope) => (backendOk ? sameStack(scope, props.backend, 'backend') : []) },
  {
    id: 'role-name',
    check: ({ props, roleName }) => {
      if (isToken(props.roleName)) return ['roleName must be known at synth time (it identifies the role), not a Terraform token'];
      return ROLE_NAME_RE.test(roleName) ? [] : [`roleName ${JSON.stringify(roleName)} must be letters, digits, "_", "-" or "." and start and end with a letter or digit`];
    },
  },
  { id: 'role-name-unique', check: ({ clash }) => (clash ? [clash] : []) },
  {
    id: 'type',
    check: ({ props }) => {
      const type: unknown = props.type;
      return type === 'iam' || type === 'vm' ? [] : [`type must be "iam" or "vm" (got ${JSON.stringify(type)})`];
    },
  },
  {
    id: 'other-type-fields',
    check: ({ props }) => {
      if (props.type !== 'iam' && props.type !== 'vm') return [];
      const other = props.type === 'iam' ? TYPE_ONLY_PROPS.vm : TYPE_ONLY_PROPS.iam;
      const found = Object.keys(other).filter((k) => raw(props)[k] !== undefined);
      return found.length
        ? [`${found.join(', ')} ${found.length > 1 ? 'are' : 'is'} not valid for a role of type ${props.type} (only for type ${props.type === 'iam' ? 'vm' : 'iam'})`]
        : [];
    },
  },
  {
    id: 'iam-service-accounts',
    check: ({ props }) => {
      if (props.type !== 'iam' || isToken(props.boundServiceAccounts)) return [];
      const sas = props.boundServiceAccounts ?? [];
      if (sas.length === 0) return ['boundServiceAccounts must list at least one service account for an iam role (use ["*"] for any)'];
      if (sas.includes('*') && sas.length > 1) return ['boundServiceAccounts: the wildcard "*" cannot be combined with other service accounts'];
      return [];
    },
  },
  {
    id: 'duration-syntax',
    check: ({ props }) =>
      DURATION_PROPS.flatMap((name) => [
        ...fractionalSeconds(name, raw(props)[name]),
        ...when(raw(props)[name] as DurationValue | undefined, (v) => {
          try {
            parseDurationSeconds(v);
            return undefined;
          } catch (e) {
            return `${name}: ${(e as Error).message}`;
          }
        }),
      ]),
  },
  {
    id: 'max-jwt-exp-limit',
    check: ({ props }) => {
      const s = props.type === 'iam' ? seconds(props.maxJwtExp) : undefined;
      return s !== undefined && s > MAX_JWT_EXP_LIMIT ? [`maxJwtExp cannot be more than 60 minutes (got ${s} seconds)`] : [];
    },
  },
  {
    id: 'ttl-within-max-ttl',
    check: ({ props }) => {
      const ttl = seconds(props.tokenTtl);
      const max = seconds(props.tokenMaxTtl);
      return ttl && max && ttl > max ? [`tokenTtl (${ttl}s) cannot be greater than tokenMaxTtl (${max}s)`] : [];
    },
  },
  {
    id: 'num-uses',
    check: ({ props }) => when(props.tokenNumUses, (n) => (Number.isInteger(n) && n >= 0 ? undefined : `tokenNumUses must be a whole number >= 0 (got ${n})`)),
  },
  {
    id: 'token-type',
    check: ({ props }) =>
      when(props.tokenType, (t) =>
        (TOKEN_TYPE_VALUES as readonly string[]).includes(t) ? undefined : `tokenType must be one of ${TOKEN_TYPE_VALUES.join(', ')} (got ${JSON.stringify(t)})`,
      ),
  },
  {
    id: 'batch-token-limits',
    check: ({ props }) => {
      if (props.tokenType !== 'batch') return [];
      const out: string[] = [];
      if ((seconds(props.tokenPeriod) ?? 0) > 0) out.push('tokenType "batch" cannot be used with tokenPeriod (batch tokens are not periodic)');
      if (typeof props.tokenNumUses === 'number' && props.tokenNumUses > 0) out.push('tokenType "batch" cannot be used with tokenNumUses');
      return out;
    },
  },
  {
    id: 'cidr-syntax',
    check: ({ props }) =>
      concreteItems(props.tokenBoundCidrs).flatMap((c) => {
        try {
          parseCidr(c);
          return [];
        } catch (e) {
          return [`tokenBoundCidrs: ${(e as Error).message}`];
        }
      }),
  },
  {
    id: 'label-format',
    check: ({ props }) => {
      if (props.type !== 'vm' || props.boundLabels === undefined || isToken(props.boundLabels)) return [];
      const bad = concreteItems(labelItems(props.boundLabels)).filter((l) => !LABEL_RE.test(l.trim()));
      return bad.length
        ? [
            `boundLabels: invalid labels ${JSON.stringify(bad)} (each is key:value; the key starts with a lower-case letter, then letters, digits, "_" or "-"; the value uses letters, digits, "_" or "-")`,
          ]
        : [];
    },
  },
  {
    id: 'instance-groups-need-location',
    check: ({ props }) => {
      if (props.type !== 'vm' || isToken(props.boundInstanceGroups)) return [];
      const groups = props.boundInstanceGroups ?? [];
      const hasZones = (props.boundZones?.length ?? 0) > 0 || isToken(props.boundZones);
      const hasRegions = (props.boundRegions?.length ?? 0) > 0 || isToken(props.boundRegions);
      return groups.length > 0 && !hasZones && !hasRegions ? ['boundInstanceGroups needs boundZones or boundRegions (the server must know where to look for the groups)'] : [];
    },
  },
];

/** Labels as sorted `key:value` items (a map and its item list render the same). */
export function labelItems(labels: VmRoleProps['boundLabels']): string[] | undefined {
  if (labels === undefined) return undefined;
  if (Array.isArray(labels)) return [...(labels as readonly string[])];
  return Object.entries(labels as Record<string, string>)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}:${v}`);
}
