// The server connection: where a stack's auth backends and snapshot configs are applied. It owns
// the stack's `keyward` provider block, its manifest and the provider launcher.

import { Construct } from 'constructs';
import { createHash } from 'node:crypto';
import type { AuthBackendPart, SnapshotPart } from './manifest-parts';
import { keywardServerRules } from './keyward-server-rules';
import { TerraformStack, type TerraformProviderType } from './cdk';
import { attachStackSynthesis } from './stack-synthesis';
import { validateAll } from './validation';

export interface KeywardServerProps {
  /**
   * Server address, e.g. `https://vault.example.com:8200`. `VAULT_ADDR` in the deploying
   * environment never overrides it, and a different `VAULT_ADDR` is an error (the token is sent to
   * neither host: unset `VAULT_ADDR` or set it to this address).
   * @default the `VAULT_ADDR` environment variable of the process that runs the deploy
   */
  readonly address?: string;
  /**
   * Where the stack's snapshot configs go instead of `address`: a `keyward snapshot-agent` that
   * serves automated snapshots for a server without them (Vault Community, OpenBao). Auth
   * backends still go to `address`. It wins over `KEYWARD_SNAPSHOT_ADDR` in the deploying environment (the fallback; a different one is a warning).
   * @default `address` (the server serves snapshot-auto itself: Vault Enterprise, the engine's enterprise edition)
   */
  readonly snapshotAddress?: string;
  /**
   * The auth method type the stack's `CloudAuthBackend` mounts have on the server. On OpenBao the
   * GCP auth method is an external plugin registered under a name the operator chose
   * (e.g. `vault-plugin-auth-gcp`). `KEYWARD_CLOUD_PLUGIN` in the deploying environment overrides it.
   * @default `gcp` on Vault and OpenBao, `cloud` on the engine
   */
  readonly cloudPlugin?: string;
  /**
   * Namespace the auth backends live in (snapshot configs always use the root namespace).
   * @default the root namespace, or `VAULT_NAMESPACE` of the deploying process
   */
  readonly namespace?: string;
  /**
   * Key for secret fingerprints (not itself secret). Changing it rewrites every secret once.
   * @default derived from the stack's construct path, so it is stable across synths
   */
  readonly fingerprintSalt?: string;
  /**
   * Which names the server speaks: `keyward` (the embedded engine) or `vault` (Vault Enterprise,
   * OpenBao: `gcp`, `gce`, `aws-s3`, …). `KEYWARD_DIALECT` or `--dialect` override it.
   * @default detected from the server's `sys/health` version at deploy time
   */
  readonly dialect?: 'keyward' | 'vault';
  /**
   * Delete snapshot configs on the server that this stack does not declare.
   * @default false - undeclared snapshot configs are left alone
   */
  readonly exclusiveSnapshotConfigs?: boolean;
  /**
   * PEM file of the CA that signed the server's certificate. `VAULT_CACERT` overrides it.
   * @default the system's trusted CAs
   */
  readonly caCertFile?: string;
  /**
   * Do not verify the server's TLS certificate (testing only).
   * @default false
   */
  readonly skipTlsVerify?: boolean;
  /**
   * Version of the write-only secrets (secrets from TerraformVariables). Terraform sends a
   * write-only value only when its version changes: bump this to send rotated values.
   * @default 1
   */
  readonly secretVersion?: number;
  /**
   * Terraform provider alias, for a second (third, …) server in the same stack: its provider block
   * is `provider "keyward" { alias = "<alias>" }`, its resources use it, and its manifest is
   * `keyward.<alias>.manifest.json` (`keyward plan --stack <stack>/<alias>`).
   * @default none - the stack's first server
   */
  readonly alias?: string;
}

const BRAND = Symbol.for('keyward.KeywardServer');

/**
 * The server a stack manages, as the `keyward` Terraform provider. The token is never a prop: the
 * provider reads `VAULT_TOKEN` from the environment of `cdktf deploy` (and `keyward apply` does
 * the same), so it is in no file and no state.
 * One per stack, or several with distinct `alias`es (one provider block per server).
 */
export class KeywardServer extends Construct {
  static isKeywardServer(x: unknown): x is KeywardServer {
    return typeof x === 'object' && x !== null && (x as Record<symbol, unknown>)[BRAND] === true;
  }

  /** The server construct of a stack, if it has one. */
  static of(scope: Construct): KeywardServer | undefined {
    return KeywardServer.allOf(scope)[0];
  }

  /** Every server construct of a stack. */
  static allOf(scope: Construct): KeywardServer[] {
    return TerraformStack.of(scope)
      .node.findAll()
      .filter((c): c is KeywardServer => KeywardServer.isKeywardServer(c));
  }

  readonly address?: string;
  readonly snapshotAddress?: string;
  readonly cloudPlugin?: string;
  readonly namespace?: string;
  readonly dialect?: 'keyward' | 'vault';
  readonly fingerprintSalt: string;
  readonly exclusiveSnapshotConfigs: boolean;
  readonly caCertFile?: string;
  readonly skipTlsVerify?: boolean;
  readonly secretVersion: number;
  readonly alias?: string;
  /** @internal the provider block this server's resources use. */
  _provider!: TerraformProviderType;
  private readonly authBackends: AuthBackendPart[] = [];
  private readonly snapshotConfigs: SnapshotPart[] = [];

  constructor(scope: Construct, id: string, props: KeywardServerProps = {}) {
    const others = KeywardServer.allOf(scope).map((s) => ({ path: s.node.path, alias: s.alias }));
    super(scope, id);
    Object.defineProperty(this, BRAND, { value: true });
    validateAll(this, 'KeywardServer', { props, others }, keywardServerRules);
    this.alias = props.alias;
    this.address = props.address;
    this.snapshotAddress = props.snapshotAddress;
    this.cloudPlugin = props.cloudPlugin;
    this.namespace = props.namespace;
    this.dialect = props.dialect;
    this.exclusiveSnapshotConfigs = props.exclusiveSnapshotConfigs ?? false;
    this.caCertFile = props.caCertFile;
    this.skipTlsVerify = props.skipTlsVerify;
    this.secretVersion = props.secretVersion ?? 1;
    this.fingerprintSalt =
      props.fingerprintSalt ??
      createHash('sha256')
        .update(`keyward-salt:${TerraformStack.of(this).node.path}${props.alias ? `:${props.alias}` : ''}`)
        .digest('hex')
        .slice(0, 32);
    attachStackSynthesis(this);
  }

  /** @internal called by CloudAuthBackend */
  _addAuthBackend(part: AuthBackendPart): void {
    this.authBackends.push(part);
  }

  /** @internal called by SnapshotAutoConfig */
  _addSnapshotConfig(part: SnapshotPart): void {
    this.snapshotConfigs.push(part);
  }

  /** @internal */
  _parts(): { authBackends: readonly AuthBackendPart[]; snapshotConfigs: readonly SnapshotPart[] } {
    return { authBackends: this.authBackends, snapshotConfigs: this.snapshotConfigs };
  }
}
