// CloudAuthBackend: a `cloud` auth mount with its config; roles attach to it by object.

import { Construct } from 'constructs';
import type { IamAlias, VmAlias } from '../src/schema/cloud-config';
import { cloudAuthBackendRules } from './cloud-auth-backend-rules';
import { KeywardServer } from './keyward-server';
import { type AuthBackendEntry, type AuthBackendPart, type ManifestContext, type RoleEntry, RemovalPolicy, compact } from './manifest-parts';
import { type SecretBinding, type SecretString, bindSecret, isSecretProblem } from './secret';
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
}

/** The `auth/<path>/config` object. A field left out means "the server default". */
export interface CloudAuthConfig {
  /**
   * Service-account key JSON the server uses to call the provider. A secret: never written to
   * state or the manifest.
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
}

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
  private readonly props: CloudAuthBackendProps;
  private readonly credentials?: SecretBinding;
  private readonly roles: RoleContributor[] = [];

  constructor(scope: Construct, id: string, props: CloudAuthBackendProps) {
    super(scope, id);
    Object.defineProperty(this, BRAND, { value: true });
    const secretProblems: string[] = [];
    let credentials: SecretBinding | undefined;
    if (props.config?.credentials !== undefined) {
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
  }

  /** @internal called by CloudAuthRole: the path of a role already using this name, if any. */
  _roleClash(roleName: string): string | undefined {
    const clash = this.roles.find((r) => r.roleName.toLowerCase() === roleName.toLowerCase());
    return clash ? `role name ${JSON.stringify(roleName)} is already used on mount "${this.path}" by ${clash.node.path}` : undefined;
  }

  /** @internal called by CloudAuthRole once its props are valid. */
  _addRole(role: RoleContributor): void {
    this.roles.push(role);
  }

  secretBindings(): readonly SecretBinding[] {
    return this.credentials ? [this.credentials] : [];
  }

  renderAuthBackend(ctx: ManifestContext): AuthBackendEntry {
    const c = this.props.config;
    const config = c
      ? compact({
          credentials: this.credentials ? ctx.secretRef(this.credentials) : undefined,
          iam_alias: c.iamAlias,
          iam_metadata: c.iamMetadata ? [...c.iamMetadata] : undefined,
          vm_alias: c.vmAlias,
          vm_metadata: c.vmMetadata ? [...c.vmMetadata] : undefined,
          custom_endpoint: c.customEndpoints ? compact({ ...c.customEndpoints }) : undefined,
        })
      : undefined;
    return compact({
      path: this.path,
      type: 'cloud' as const,
      description: this.props.description,
      config,
      roles: this.roles.map((r) => r.renderRole()),
      exclusiveRoles: this.props.exclusiveRoles ?? false,
    });
  }
}
