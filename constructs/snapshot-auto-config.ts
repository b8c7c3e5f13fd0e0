// SnapshotAutoConfig: a named automated snapshot configuration on the server (root namespace),
// synthesized as one keyward_snapshot_auto_config resource.

import { Construct } from 'constructs';
import type { DurationValue } from './cloud-auth-role';
import { KeywardServer } from './keyward-server';
import { type ManifestContext, type SnapshotEntry, type SnapshotPart, RemovalPolicy, compact } from './manifest-parts';
import { type SecretBinding, bindSecret, isSecretProblem, secretAttributes } from './secret';
import { snapshotAutoConfigRules } from './snapshot-auto-config-rules';
import type { SnapshotStorage } from './snapshot-storage';
import { KeywardResource, useServer } from './terraform-elements';
import { validateAll } from './validation';

export interface SnapshotAutoConfigProps {
  /** The server the configuration lives on. */
  readonly server: KeywardServer;
  /**
   * Configuration name.
   * @default the construct id
   */
  readonly configName?: string;
  /** Time between snapshots: whole seconds or a duration string ("1h", "24h", "30m"). */
  readonly interval: DurationValue;
  /**
   * Number of snapshots kept; older ones are deleted after a new one is complete.
   * @default 1
   */
  readonly retain?: number;
  /**
   * `local`: the directory. Object stores: the key prefix (Vault's docs ask for a trailing "/" on
   * cloudTwo and cloudThree; the embedded engine requires it).
   */
  readonly pathPrefix: string;
  /**
   * Start of each snapshot's file or object name.
   * @default 'vault-snapshot'
   */
  readonly filePrefix?: string;
  /**
   * Load the newest snapshot of this config automatically when the cluster recovers (Vault 1.21+;
   * the embedded engine stores it but loads nothing). Not for local storage; one config per server.
   * @default false
   */
  readonly autoloadEnabled?: boolean;
  /** Where snapshots go: `SnapshotStorage.local(...)`, `.cloudOne(...)`, `.cloudTwo(...)`, `.cloudThree(...)`. */
  readonly storage: SnapshotStorage;
  /**
   * What `cdktf destroy` does with the configuration (snapshots already written are never deleted).
   * @default RemovalPolicy.DESTROY
   */
  readonly removalPolicy?: RemovalPolicy;
}

const BRAND = Symbol.for('keyward.SnapshotAutoConfig');

/** An automated snapshot configuration. */
export class SnapshotAutoConfig extends Construct implements SnapshotPart {
  static isSnapshotAutoConfig(x: unknown): x is SnapshotAutoConfig {
    return typeof x === 'object' && x !== null && (x as Record<symbol, unknown>)[BRAND] === true;
  }

  readonly server: KeywardServer;
  readonly configName: string;
  readonly removalPolicy: RemovalPolicy;
  private readonly props: SnapshotAutoConfigProps;
  private readonly bindings: SecretBinding[] = [];
  private readonly resource: KeywardResource;

  constructor(scope: Construct, id: string, props: SnapshotAutoConfigProps) {
    super(scope, id);
    Object.defineProperty(this, BRAND, { value: true });
    this.configName = props.configName ?? id;
    const secretProblems: string[] = [];
    // A secret option given as undefined (an unset environment variable) is refused by bindSecret.
    for (const [field, value] of Object.entries(props.storage?.secrets ?? {})) {
      if (value === undefined && !(props.storage?.givenSecrets ?? []).includes(field)) continue;
      const b = bindSecret(this, field, value);
      if (isSecretProblem(b)) secretProblems.push(b.problem);
      else this.bindings.push(b);
    }
    const other = (KeywardServer.isKeywardServer(props.server) ? props.server._parts().snapshotConfigs : []).find((s) => s.configName === this.configName);
    validateAll(this, 'SnapshotAutoConfig', { props, configName: this.configName, secretProblems, clash: other?.node.path }, snapshotAutoConfigRules);
    this.props = props;
    this.server = props.server;
    this.removalPolicy = props.removalPolicy ?? RemovalPolicy.DESTROY;
    props.server._addSnapshotConfig(this);
    this.resource = new KeywardResource(this, 'resource', 'keyward_snapshot_auto_config', () => this.resourceAttributes());
    useServer(this.resource, this.server);
  }

  /**
   * Brings the snapshot config already on the server named `id` under this construct on the next
   * deploy instead of creating it (a create over an existing config is refused); remove the call
   * once deployed. `keyward import --snapshots` writes it for you.
   */
  importFrom(id: string): void {
    this.resource.importFrom(id);
  }

  /** The config's declared non-secret fields: the same in the Terraform resource and the manifest. */
  private declaredFields(): Record<string, unknown> {
    const p = this.props;
    return {
      name: this.configName,
      storage_type: p.storage.storageType,
      interval: p.interval,
      retain: p.retain,
      path_prefix: p.pathPrefix,
      file_prefix: p.filePrefix,
      autoload_enabled: p.autoloadEnabled,
      ...compact({ ...p.storage.fields }),
    };
  }

  /** The keyward_snapshot_auto_config resource's attributes (docs/terraform-provider.md). */
  private resourceAttributes(): Record<string, unknown> {
    return compact({
      ...this.declaredFields(),
      ...Object.assign({}, ...this.bindings.map((b) => secretAttributes(b.field, b, this.server.secretVersion))),
      retain_on_destroy: this.removalPolicy === RemovalPolicy.RETAIN ? true : undefined,
    });
  }

  renderSnapshotConfig(ctx: ManifestContext): SnapshotEntry {
    const secrets = Object.fromEntries(this.bindings.map((b) => [b.field, ctx.secretRef(b)]));
    return compact({ ...this.declaredFields(), ...secrets }) as SnapshotEntry;
  }
}
