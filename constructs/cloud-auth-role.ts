// CloudAuthRole: a named role of type iam or vm on a CloudAuthBackend. The props types make a field
// of the other type a compile-time error; the rules refuse it again at run time (plain JS callers).

import { Construct } from 'constructs';
import { CloudAuthBackend } from './cloud-auth-backend';
import { cloudAuthRoleRules, labelItems } from './cloud-auth-role-rules';
import { type RoleEntry, compact } from './manifest-parts';
import { validateAll } from './validation';

/** Whole seconds, or a duration string such as "90s", "15m", "1h30m", "7d". */
export type DurationValue = number | string;

/** Fields every role has. Left out: the server default. */
export interface CloudAuthRoleBaseProps {
  /** The mount the role belongs to. */
  readonly backend: CloudAuthBackend;
  /**
   * Role name (the server lower-cases it).
   * @default the construct id, lower-cased
   */
  readonly roleName?: string;
  /**
   * Only entities of these projects may log in.
   * @default any project
   */
  readonly boundProjects?: readonly string[];
  /**
   * Add project, folder and organization group aliases to tokens.
   * @default false
   */
  readonly addGroupAliases?: boolean;
  /**
   * Incremental lifetime of issued tokens.
   * @default the mount's default TTL
   */
  readonly tokenTtl?: DurationValue;
  /**
   * Maximum lifetime of issued tokens.
   * @default the mount's maximum TTL
   */
  readonly tokenMaxTtl?: DurationValue;
  /**
   * Hard cap on token lifetime, renewals included.
   * @default no explicit cap
   */
  readonly tokenExplicitMaxTtl?: DurationValue;
  /**
   * Period of periodic tokens.
   * @default tokens are not periodic
   */
  readonly tokenPeriod?: DurationValue;
  /**
   * Policies put on issued tokens.
   * @default no policies besides `default`
   */
  readonly tokenPolicies?: readonly string[];
  /**
   * IPs or CIDR blocks logins must come from; tokens are bound to them too.
   * @default any address
   */
  readonly tokenBoundCidrs?: readonly string[];
  /**
   * Leave the `default` policy off issued tokens.
   * @default false
   */
  readonly tokenNoDefaultPolicy?: boolean;
  /**
   * Maximum uses per token; 0 is unlimited.
   * @default 0
   */
  readonly tokenNumUses?: number;
  /**
   * Kind of token issued.
   * @default 'default' (the mount's setting, normally service tokens)
   */
  readonly tokenType?: 'default' | 'service' | 'batch';
}

/** An iam role: service accounts log in with a signed JWT. */
export interface IamRoleProps extends CloudAuthRoleBaseProps {
  /** Service account emails or ids allowed to log in; `['*']` allows all. */
  readonly boundServiceAccounts: readonly string[];
  /**
   * Login JWTs must expire within this time.
   * @default 15 minutes
   */
  readonly maxJwtExp?: DurationValue;
  /**
   * Let VM instances log in through their service account.
   * @default true
   */
  readonly allowVmInference?: boolean;
  /** vm roles only. */
  readonly boundZones?: never;
  /** vm roles only. */
  readonly boundRegions?: never;
  /** vm roles only. */
  readonly boundInstanceGroups?: never;
  /** vm roles only. */
  readonly boundLabels?: never;
}

/** A vm role: compute instances log in with an instance identity token. */
export interface VmRoleProps extends CloudAuthRoleBaseProps {
  /**
   * Service accounts the instance must run as. `*` means any only on keyward's engine: on Vault
   * and OpenBao it is a literal that no VM matches, so the plan refuses it there.
   * @default any service account (when the list is left out)
   */
  readonly boundServiceAccounts?: readonly string[];
  /**
   * Zones the instance must be in.
   * @default any zone
   */
  readonly boundZones?: readonly string[];
  /**
   * Regions the instance must be in (ignored when boundZones is set).
   * @default any region
   */
  readonly boundRegions?: readonly string[];
  /**
   * Instance groups the instance must belong to; needs boundZones or boundRegions.
   * @default no group restriction
   */
  readonly boundInstanceGroups?: readonly string[];
  /**
   * Labels the instance must carry: a map, or `key:value` items.
   * @default no label restriction
   */
  readonly boundLabels?: Readonly<Record<string, string>> | readonly string[];
  /** iam roles only. */
  readonly maxJwtExp?: never;
  /** iam roles only. */
  readonly allowVmInference?: never;
}

export type CloudAuthRoleProps = ({ readonly type: 'iam' } & IamRoleProps) | ({ readonly type: 'vm' } & VmRoleProps);

const BRAND = Symbol.for('keyward.CloudAuthRole');

/** A role of the cloud auth method. Prefer `CloudAuthRole.iam(...)` and `CloudAuthRole.vm(...)`. */
export class CloudAuthRole extends Construct {
  static isCloudAuthRole(x: unknown): x is CloudAuthRole {
    return typeof x === 'object' && x !== null && (x as Record<symbol, unknown>)[BRAND] === true;
  }

  /** An iam role. */
  static iam(scope: Construct, id: string, props: IamRoleProps): CloudAuthRole {
    return new CloudAuthRole(scope, id, { ...props, type: 'iam' });
  }

  /** A vm role. */
  static vm(scope: Construct, id: string, props: VmRoleProps): CloudAuthRole {
    return new CloudAuthRole(scope, id, { ...props, type: 'vm' });
  }

  readonly backend: CloudAuthBackend;
  readonly roleName: string;
  readonly type: 'iam' | 'vm';
  /**
   * The role's `role_id`, as a Terraform token resolved at apply (a new one whenever the role is
   * recreated: renamed or retyped).
   * @attribute
   */
  readonly roleId: string;
  private readonly props: CloudAuthRoleProps;

  constructor(scope: Construct, id: string, props: CloudAuthRoleProps) {
    super(scope, id);
    Object.defineProperty(this, BRAND, { value: true });
    this.props = props;
    this.backend = props.backend;
    this.type = props.type;
    this.roleName = props.roleName ?? id.toLowerCase();
    const backendOk = CloudAuthBackend.isCloudAuthBackend(props.backend);
    const clash = backendOk ? props.backend._roleClash(this.roleName) : undefined;
    validateAll(this, 'CloudAuthRole', { props, roleName: this.roleName, backendOk, clash }, cloudAuthRoleRules);
    props.backend._addRole(this);
    this.roleId = props.backend._roleIdAttribute(this.roleName);
  }

  /** @internal the manifest entry */
  renderRole(): RoleEntry {
    const p = this.props;
    const list = (v: readonly string[] | undefined) => (v === undefined ? undefined : [...v]);
    const common = {
      name: this.roleName,
      bound_service_accounts: list(p.boundServiceAccounts),
      bound_projects: list(p.boundProjects),
      add_group_aliases: p.addGroupAliases,
      token_ttl: p.tokenTtl,
      token_max_ttl: p.tokenMaxTtl,
      token_explicit_max_ttl: p.tokenExplicitMaxTtl,
      token_period: p.tokenPeriod,
      token_policies: list(p.tokenPolicies),
      token_bound_cidrs: list(p.tokenBoundCidrs),
      token_no_default_policy: p.tokenNoDefaultPolicy,
      token_num_uses: p.tokenNumUses,
      token_type: p.tokenType,
    };
    if (p.type === 'iam') {
      return compact({ ...common, type: 'iam' as const, max_jwt_exp: p.maxJwtExp, allow_vm_inference: p.allowVmInference });
    }
    return compact({
      ...common,
      type: 'vm' as const,
      bound_zones: list(p.boundZones),
      bound_regions: list(p.boundRegions),
      bound_instance_groups: list(p.boundInstanceGroups),
      bound_labels: labelItems(p.boundLabels),
    });
  }
}
