// Stack-level synthesis of a KeywardServer: the `keyward` provider block, the exclusive snapshot
// configs resource, and two files in the stack's working directory: the manifest next to
// cdk.tf.json (so `keyward plan/apply --dir cdktf.out` work without Terraform) and the provider
// launcher in Terraform's implied local mirror (terraform.d/plugins), so `terraform init` installs
// the provider offline.

import { isPlanOnly } from '../src/schema/plan-only';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MANIFEST_VERSION, manifestFileName, type ManifestInput } from '../src/schema/manifest';
import { DefaultTokenResolver, type ISynthesisSession, StringConcat, TerraformStack, Token, Tokenization, addCustomSynthesis } from './cdk';
import type { KeywardServer } from './keyward-server';
import { writeLauncher, writeLockEntry } from './launcher';
import { ManifestContext, compact } from './manifest-parts';
import { KeywardProviderBlock, KeywardResource, useServer } from './terraform-elements';

/** The stack's full manifest (with unresolved tokens where props held them). */
export function buildManifest(server: KeywardServer): ManifestInput {
  const ctx = new ManifestContext(server.fingerprintSalt);
  const parts = server._parts();
  return compact({
    version: MANIFEST_VERSION,
    stack: TerraformStack.of(server).node.id,
    fingerprintSalt: server.fingerprintSalt,
    server: compact({ address: server.address, namespace: server.namespace, dialect: server.dialect, snapshotAddress: server.snapshotAddress, cloudPlugin: server.cloudPlugin }),
    authBackends: parts.authBackends.map((b) => b.renderAuthBackend(ctx)),
    snapshotConfigs: parts.snapshotConfigs.map((s) => s.renderSnapshotConfig(ctx)),
    exclusiveSnapshotConfigs: server.exclusiveSnapshotConfigs,
  }) as ManifestInput;
}

/**
 * Resolves tokens to Terraform expressions ("${var.x}") for the manifest file. Only the parts that
 * hold a token go through the token resolver: at 10,000 roles resolving the whole manifest took
 * about half a second, and roles rarely hold tokens. Arrays are resolved whole (a list token is
 * an array).
 */
function resolveTokens(server: KeywardServer, v: unknown): unknown {
  if (!hasToken(v)) return v;
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && !Tokenization.isResolvable(v)) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolveTokens(server, x)]));
  }
  return Tokenization.resolve(v, { scope: server, preparing: false, resolver: new DefaultTokenResolver(new StringConcat()) });
}

function hasToken(v: unknown): boolean {
  if (typeof v === 'string' || typeof v === 'number') return Token.isUnresolved(v);
  if (Array.isArray(v)) return Token.isUnresolved(v) || v.some(hasToken);
  if (v !== null && typeof v === 'object') return Tokenization.isResolvable(v) || Object.values(v).some(hasToken);
  return false;
}

/** The provider block's attributes (the token never: the provider reads VAULT_TOKEN). */
function providerAttributes(server: KeywardServer): Record<string, unknown> {
  return compact({
    address: server.address,
    snapshot_address: server.snapshotAddress,
    cloud_plugin: server.cloudPlugin,
    namespace: server.namespace,
    ca_cert_file: server.caCertFile,
    skip_tls_verify: server.skipTlsVerify,
    dialect: server.dialect,
    fingerprint_salt: server.fingerprintSalt,
    // The plan-only mark travels in Terraform's saved plan: the provider refuses to apply it (issue 40).
    plan_only: isPlanOnly(process.env) ? true : undefined,
  });
}

/** Creates the stack-level Terraform elements and file writers of a server construct. */
export function attachStackSynthesis(server: KeywardServer): void {
  const provider = new KeywardProviderBlock(server, 'provider', () => providerAttributes(server));
  if (server.alias) provider.alias = server.alias;
  server._provider = provider;
  if (server.exclusiveSnapshotConfigs) {
    const exclusive = new KeywardResource(server, 'exclusive-snapshot-configs', 'keyward_exclusive_snapshot_configs', () => ({
      names: server._parts().snapshotConfigs.map((s) => s.configName),
    }));
    useServer(exclusive, server);
  }
  addCustomSynthesis(server, {
    onSynthesize(session: ISynthesisSession) {
      const stackDir = join(session.outdir, session.manifest.forStack(TerraformStack.of(server)).workingDirectory);
      mkdirSync(stackDir, { recursive: true });
      writeFileSync(join(stackDir, manifestFileName(server.alias)), `${JSON.stringify(resolveTokens(server, buildManifest(server)), null, 2)}\n`);
      writeLauncher(join(stackDir, 'terraform.d', 'plugins'));
      writeLockEntry(stackDir);
    },
  });
}
