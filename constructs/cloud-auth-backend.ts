// CloudAuthBackend: a `cloud` auth mount with its config; roles attach to it by object. The mount,
// its config and all its roles are ONE keyward_cloud_auth_backend resource (roles as a map keyed by
// role name), so 10,000 roles cost Terraform one resource.

import { Construct } from 'constructs';
import type { IamAlias, VmAlias } from '../src/schema/cloud-config';
import type { DurationValue } from './cloud-auth-role';
import { cloudAuthBackendRules } from './cloud-auth-backend-rules';
import { KeywardServer } from './keyward-server';
import { type AuthBackendEntry, type AuthBackendPart, type ManifestContext, type RoleEntry, RemovalPolicy, compact } from './manifest-parts';
import { type SecretBinding, type SecretString, bindSecret, isSecretProblem, secretAttributes } from './secret';
import { KeywardResource, useServer } from './terraform-elements';
import { validateAll } from './validation';

/** Base URLs that replace Google's endpoints (private access, emulators). */
export interface CloudCustomEndpoints {
  /** Public keys (`/oauth2/v1/certs`). @default https://www.googleapis.com */
  readonly api?: string;
  /** IAM service accounts. @default https://iam.googleapis.com */
  readonly iam?: string;
  /** Resource Manager (project ancestry for group aliases). @default https://cloudresourcemanager.googleapis.com */
  readonly crm?: string;
  /** Compute Engine (instances, instance groups). @default https://compute.googleapis.com */
  readonly compute?: string;
  /**
   * Security Token Service, where workload identity federation exchanges the server's plugin
   * identity token (e.g. the cloud emulator's). keyward's engine only: Vault always calls Google's
   * STS and refuses this key.
   * @default https://sts.googleapis.com
   */
  readonly sts?: string;
  /**
   * IAM Credentials, where workload identity federation impersonates `serviceAccountEmail`
   * (`generateAccessToken`). keyward's engine only: Vault always calls Google's and refuses this key.
   * @default https://iamcredentials.googleapis.com
   */
  readonly iamcredentials?: string;
}

/** The `auth/<path>/config` object. A field left out means "the server default". */
export interface CloudAuthConfig {
  /**
   * Service-account key JSON the server uses to call the provider. A secret: never written to
   * state or the manifest. `process.env.NAME` (or `secretFromEnv('NAME')`): the provider reads NAME
   * when it plans and applies; a sensitive or ephemeral TerraformVariable: a write-only attribute.
   * @default none - the server uses its ambient credentials
   */
  readonly credentials?: SecretString;
  /**
   * Alias name of iam logins.
   * @default 'role_id' (server default)
   */
  readonly iamAlias?: IamAlias;
  /**
   * Metadata keys put on iam tokens: a subset of the defaults, `[]` for none, or `['default']`.
   * @default the server's default list
   */
  readonly iamMetadata?: readonly string[];
  /**
   * Alias name of vm logins.
   * @default 'role_id' (server default)
   */
  readonly vmAlias?: VmAlias;
  /**
   * Metadata keys put on vm tokens: a subset of the defaults, `[]` for none, or `['default']`.
   * @default the server's default list
   */
  readonly vmMetadata?: readonly string[];
  /**
   * Endpoint overrides.
   * @default Google's public endpoints
   */
  readonly customEndpoints?: CloudCustomEndpoints;
  /**
   * Service account the server impersonates through workload identity federation (keyless); needed
   * with identityTokenAudience.
   * @default none
   */
  readonly serviceAccountEmail?: string;
  /**
   * Audience of the server's plugin identity token, exchanged for cloud credentials (WIF: a
   * workload identity pool provider's resource name). Excludes `credentials`.
   * @default none - no workload identity federation
   */
  readonly identityTokenAudience?: string;
  /**
   * Lifetime of the plugin identity token (WIF).
   * @default 1 hour
   */
  readonly identityTokenTtl?: DurationValue;
  /**
   * Rotate the root credentials this often. Once rotation is configured, `credentials` is only the
   * initial key: a key the server rotated is not drift and is never sent again.
   * @default no periodic rotation
   */
  readonly rotationPeriod?: DurationValue;
  /**
   * Cron schedule for rotating the root credentials (not with rotationPeriod).
   * @default no scheduled rotation
   */
  readonly rotationSchedule?: string;
  /**
   * How long after a scheduled time a rotation may still start (needs rotationSchedule).
   * @default no window
   */
  readonly rotationWindow?: DurationValue;
  /**
   * Pause automated rotation without removing its settings.
   * @default false
   */
  readonly disableAutomatedRotation?: boolean;
}

/** The token type an auth mount issues (its `token_type` tune setting). */
export type MountTokenType = 'default-service' | 'default-batch' | 'service' | 'batch';

export interface CloudAuthBackendProps {
  /** The server the mount lives on. */
  readonly server: KeywardServer;
  /**
   * Mount path, without slashes at either end.
   * @default 'cloud'
   */
  readonly path?: string;
  /**
   * Mount description.
   * @default no description
   */
  readonly description?: string;
  /**
   * The auth method's configuration.
   * @default the config is not managed: whatever the server holds stays
   */
  readonly config?: CloudAuthConfig;
  /**
   * The mount's earlier path, for `keyward apply` (the CLI): when only that path exists on the
   * server, the mount is moved to `path` (sys/remount) with its config, roles and tokens, instead of
   * being deleted and created again. Terraform moves it by itself when `path` changes (the resource
   * stays the same), so `cdktf deploy` needs no such hint.
   * @default no earlier path
   */
  readonly movedFrom?: string;
  /**
   * Keep the mount on this cluster only (not replicated to performance secondaries). Fixed when the
   * mount is enabled: a change replaces the mount, with its roles.
   * @default false
   */
  readonly local?: boolean;
  /**
   * Default lifetime of tokens issued through the mount (tune).
   * @default the system default
   */
  readonly defaultLeaseTtl?: DurationValue;
  /**
   * Longest lifetime of tokens issued through the mount (tune).
   * @default the system default
   */
  readonly maxLeaseTtl?: DurationValue;
  /**
   * Token type the mount issues (tune).
   * @default 'default-service'
   */
  readonly tokenType?: MountTokenType;
  /**
   * `'unauth'` lists the mount to unauthenticated users (tune).
   * @default not listed
   */
  readonly listingVisibility?: 'unauth' | 'hidden';
  /**
   * What `cdktf destroy` does with the mount (and its roles and config).
   * @default RemovalPolicy.DESTROY
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Delete roles on this mount that the stack does not declare.
   * @default false - roles created outside the stack are left alone
   */
  readonly exclusiveRoles?: boolean;
}

/** Role constructs register through this interface (keeps role -> backend one-directional). */
export interface RoleContributor {
  readonly node: Construct['node'];
  renderRole(): RoleEntry;
  readonly roleName: string;
  readonly type: 'iam' | 'vm';
}

const BRAND = Symbol.for('keyward.CloudAuthBackend');

/** A `cloud` auth method mount, its config, and the roles attached to it. */
export class CloudAuthBackend extends Construct implements AuthBackendPart {
  static isCloudAuthBackend(x: unknown): x is CloudAuthBackend {
    return typeof x === 'object' && x !== null && (x as Record<symbol, unknown>)[BRAND] === true;
  }

  readonly server: KeywardServer;
  /** Mount path (no slashes at either end). */
  readonly path: string;
  readonly removalPolicy: RemovalPolicy;
  /**
   * The mount's accessor (`auth_cloud_…`), as a Terraform token resolved at apply: pass it to
   * whatever needs the mount's identity (entity aliases, ACL templates, outputs).
   * @attribute
   */
  readonly accessor: string;
  private readonly props: CloudAuthBackendProps;
  private readonly resource: KeywardResource;
  private readonly credentials?: SecretBinding;
  private readonly roles: RoleContributor[] = [];
  /** Roles by lower-cased name: the clash check stays constant-time at 10,000 roles. */
  private readonly roleByName = new Map<string, RoleContributor>();

  constructor(scope: Construct, id: string, props: CloudAuthBackendProps) {
    super(scope, id);
    Object.defineProperty(this, BRAND, { value: true });
    const secretProblems: string[] = [];
    let credentials: SecretBinding | undefined;
    // Present but undefined is an unset environment variable: refused, never a silent reset.
    if (props.config !== undefined && props.config !== null && 'credentials' in props.config) {
      const b = bindSecret(this, 'config.credentials', props.config.credentials);
      if (isSecretProblem(b)) secretProblems.push(b.problem);
      else credentials = b;
    }
    const samePath = (KeywardServer.isKeywardServer(props.server) ? props.server._parts().authBackends : []).find((b) => b.path === (props.path ?? 'cloud'));
    const clash = samePath?.node.path;
    validateAll(this, 'CloudAuthBackend', { props, secretProblems, clash }, cloudAuthBackendRules);
    this.props = props;
    this.server = props.server;
    this.path = props.path ?? 'cloud';
    this.removalPolicy = props.removalPolicy ?? RemovalPolicy.DESTROY;
    this.credentials = credentials;
    props.server._addAuthBackend(this);
    this.resource = new KeywardResource(this, 'resource', 'keyward_cloud_auth_backend', () => this.resourceAttributes());
    useServer(this.resource, this.server);
    this.accessor = this.resource.getStringAttribute('accessor');
  }

  /**
   * Brings the mount already on the server at `id` (its path, e.g. `"cloud"`) under this construct
   * on the next deploy, with its config and roles, instead of creating it (a create over an
   * existing mount is refused). Terraform then plans what differs from the declaration; remove the
   * call once deployed. `keyward import --mount PATH` writes it for you.
   */
  importFrom(id: string): void {
    this.resource.importFrom(id);
  }

  /** @internal the role_id of a role of this backend, as a token (roles are nested in the backend's resource). */
  _roleIdAttribute(roleName: string): string {
    return this.resource.getStringAttribute(`roles[${JSON.stringify(roleName.toLowerCase())}].role_id`);
  }

  /** @internal called by CloudAuthRole: the path of a role already using this name, if any. */
  _roleClash(roleName: string): string | undefined {
    const clash = this.roleByName.get(roleName.toLowerCase());
    return clash ? `role name ${JSON.stringify(roleName)} is already used on mount "${this.path}" by ${clash.node.path}` : undefined;
  }

  /** @internal called by CloudAuthRole once its props are valid. */
  _addRole(role: RoleContributor): void {
    this.roles.push(role);
    if (!this.roleByName.has(role.roleName.toLowerCase())) this.roleByName.set(role.roleName.toLowerCase(), role);
  }

  /** The config's non-secret fields in wire names (the same in the resource and the manifest). */
  private configFields(c: CloudAuthConfig): Record<string, unknown> {
    return {
      iam_alias: c.iamAlias,
      iam_metadata: c.iamMetadata ? [...c.iamMetadata] : undefined,
      vm_alias: c.vmAlias,
      vm_metadata: c.vmMetadata ? [...c.vmMetadata] : undefined,
      custom_endpoint: c.customEndpoints ? compact({ ...c.customEndpoints }) : undefined,
      service_account_email: c.serviceAccountEmail,
      identity_token_audience: c.identityTokenAudience,
      identity_token_ttl: c.identityTokenTtl,
      rotation_period: c.rotationPeriod,
      rotation_schedule: c.rotationSchedule,
      rotation_window: c.rotationWindow,
      disable_automated_rotation: c.disableAutomatedRotation,
    };
  }

  /** The mount's own fields in wire names. */
  private mountFields(): Record<string, unknown> {
    const p = this.props;
    return {
      description: p.description,
      local: p.local,
      default_lease_ttl: p.defaultLeaseTtl,
      max_lease_ttl: p.maxLeaseTtl,
      token_type: p.tokenType,
      listing_visibility: p.listingVisibility,
    };
  }

  /** The keyward_cloud_auth_backend resource's attributes (docs/terraform-provider.md). */
  private resourceAttributes(): Record<string, unknown> {
    const c = this.props.config;
    const config = c
      ? compact({
          ...(this.credentials ? secretAttributes('credentials', this.credentials, this.server.secretVersion) : {}),
          ...this.configFields(c),
        })
      : undefined;
    const roles = Object.fromEntries(this.roles.map((r) => [r.roleName.toLowerCase(), roleAttributes(r.renderRole())]));
    return compact({
      path: this.path,
      ...this.mountFields(),
      exclusive_roles: this.props.exclusiveRoles === true ? true : undefined,
      retain_on_destroy: this.removalPolicy === RemovalPolicy.RETAIN ? true : undefined,
      config,
      // A map block written as {} is a Terraform JSON error ("Missing block label"): no roles, no key.
      roles: this.roles.length > 0 ? roles : undefined,
    });
  }

  renderAuthBackend(ctx: ManifestContext): AuthBackendEntry {
    const c = this.props.config;
    const config = c ? compact({ credentials: this.credentials ? ctx.secretRef(this.credentials) : undefined, ...this.configFields(c) }) : undefined;
    return compact({
      path: this.path,
      type: 'cloud' as const,
      movedFrom: this.props.movedFrom,
      ...this.mountFields(),
      config,
      roles: this.roles.map((r) => r.renderRole()),
      exclusiveRoles: this.props.exclusiveRoles ?? false,
    });
  }
}

/** A role's manifest entry as the resource's map value: no name (it is the key), labels as a map. */
function roleAttributes(entry: RoleEntry): Record<string, unknown> {
  const { name: _name, ...rest } = entry as RoleEntry & Record<string, unknown>;
  const labels = (rest as { bound_labels?: unknown }).bound_labels;
  if (Array.isArray(labels)) {
    (rest as Record<string, unknown>).bound_labels = Object.fromEntries((labels as string[]).map((l) => [l.slice(0, l.indexOf(':')).trim(), l.slice(l.indexOf(':') + 1).trim()]));
  }
  return rest;
}
