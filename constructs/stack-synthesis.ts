// Synthesis of a stack's desired state (DESIGN.md "Terraform integration"): the manifest file next
// to cdk.tf.json, and two built-in terraform_data resources whose local-exec provisioners run keyward.
//
// - "apply": input = the redacted manifest (so `cdktf diff` shows field changes), triggers_replace =
//   its digest plus secret fingerprints. Terraform runs provisioners only on create/replace, so every
//   change replaces it: the old instance's destroy-time provisioner restores the last-applied record
//   (see keyward-command.ts); the new instance's create-time provisioner applies the new state with
//   that record, so objects the stack no longer declares are deleted in the same ordered apply.
// - "teardown": stable (no triggers), input = what `cdktf destroy` must remove (removal policy
//   DESTROY), updated in place; its destroy-time provisioner deletes all of self.input.

import { DataResource, DefaultTokenResolver, type ISynthesisSession, Lazy, StringConcat, TerraformStack, Tokenization } from 'cdktf';
// Not re-exported from the package root; the stack synthesizer calls it for custom file output.
import { addCustomSynthesis } from 'cdktf/lib/synthesize/synthesizer';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MANIFEST_FILE_NAME, MANIFEST_VERSION, type ManifestInput } from '../src/schema/manifest';
import { ENV_DESIRED, ENV_ID, ENV_MANAGED, ENV_PREVIOUS, keywardCommands, resolveKeywardBin } from './keyward-command';
import type { KeywardServer } from './keyward-server';
import { ManifestContext, RemovalPolicy, compact } from './manifest-parts';

/** JSON with object keys sorted at every level: equal states give equal text and digests. */
export function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** The stack's full manifest (with unresolved tokens where props held them). */
export function buildManifest(server: KeywardServer, only?: RemovalPolicy): ManifestInput {
  const ctx = new ManifestContext(server.fingerprintSalt);
  const parts = server._parts();
  const keep = (p: { removalPolicy: RemovalPolicy }) => only === undefined || p.removalPolicy === only;
  return compact({
    version: MANIFEST_VERSION,
    stack: TerraformStack.of(server).node.id,
    fingerprintSalt: server.fingerprintSalt,
    server: compact({ address: server.address, namespace: server.namespace, dialect: server.dialect }),
    authBackends: parts.authBackends.filter(keep).map((b) => {
      const entry = b.renderAuthBackend(ctx);
      // Teardown deletes what the stack manages: never "everything on the mount".
      return only === undefined ? entry : { ...entry, exclusiveRoles: false };
    }),
    snapshotConfigs: parts.snapshotConfigs.filter(keep).map((s) => s.renderSnapshotConfig(ctx)),
    exclusiveSnapshotConfigs: only === undefined ? server.exclusiveSnapshotConfigs : false,
  }) as ManifestInput;
}

/** Resolves tokens to Terraform expressions ("${var.x}") for the manifest file and digests. */
function resolveTokens(server: KeywardServer, v: unknown): unknown {
  return Tokenization.resolve(v, { scope: server, preparing: false, resolver: new DefaultTokenResolver(new StringConcat()) });
}

/** Every Terraform expression string inside a resolved value (their values must trigger a replace too). */
function expressionsIn(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string' && v.includes('${')) out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => expressionsIn(x, out));
  else if (v && typeof v === 'object') Object.values(v).forEach((x) => expressionsIn(x, out));
  return out;
}

/** Provisioner environment entries for secrets that come from Terraform variables. */
function secretEnvironment(server: KeywardServer): Record<string, string> {
  const parts = server._parts();
  const env: Record<string, string> = {};
  for (const p of [...parts.authBackends, ...parts.snapshotConfigs]) {
    for (const b of p.secretBindings()) if (b.tfValue) env[b.env] = b.tfValue;
  }
  return env;
}

/**
 * Terraform-computed hashes of variable secrets (salted; Terraform has no HMAC): a rotated value must
 * replace the apply resource, whose input cannot show it.
 */
function secretTriggers(server: KeywardServer): Record<string, string> {
  const parts = server._parts();
  const out: Record<string, string> = {};
  for (const p of [...parts.authBackends, ...parts.snapshotConfigs]) {
    for (const b of p.secretBindings()) {
      if (b.tfValue) out[b.env] = `\${sha256("${server.fingerprintSalt}:\${${b.tfValue.slice(2, -1)}}")}`;
    }
  }
  return out;
}

/** Creates the stack's terraform_data resources and the manifest writer for a server construct. */
export function attachStackSynthesis(server: KeywardServer): void {
  const bin = resolveKeywardBin(process.cwd());
  const commands = keywardCommands(bin);
  const desired = () => buildManifest(server);

  const teardown = new DataResource(server, 'keyward-teardown', {
    input: Lazy.anyValue({ produce: () => buildManifest(server, RemovalPolicy.DESTROY) }) as unknown as Record<string, unknown>,
    provisioners: [
      { type: 'local-exec', when: 'destroy', command: commands.teardown, environment: { [ENV_MANAGED]: '${jsonencode(self.input)}' } },
    ],
  });

  new DataResource(server, 'keyward-apply', {
    dependsOn: [teardown],
    input: Lazy.anyValue({ produce: desired }) as unknown as Record<string, unknown>,
    triggersReplace: Lazy.anyValue({
      produce: () => {
        const resolved = resolveTokens(server, desired());
        const exprs = [...new Set(expressionsIn(resolved))].sort();
        return compact({
          digest: `sha256:${createHash('sha256').update(stableJson(resolved)).digest('hex')}`,
          // Terraform expressions (variables, secret fingerprints): their values must replace too.
          values: exprs.length ? exprs : undefined,
          secrets: Object.keys(secretTriggers(server)).length ? secretTriggers(server) : undefined,
        });
      },
    }) as unknown as Record<string, unknown>,
    provisioners: [
      {
        type: 'local-exec',
        command: commands.apply,
        environment: Lazy.anyValue({ produce: () => ({ [ENV_DESIRED]: '${jsonencode(self.input)}', [ENV_ID]: '${self.id}', ...secretEnvironment(server) }) }) as unknown as Record<
          string,
          string
        >,
      },
      { type: 'local-exec', when: 'destroy', command: commands.record, environment: { [ENV_PREVIOUS]: '${jsonencode(self.input)}', [ENV_ID]: '${self.id}' } },
    ],
  });

  addCustomSynthesis(server, {
    onSynthesize(session: ISynthesisSession) {
      const stackDir = join(session.outdir, session.manifest.forStack(TerraformStack.of(server)).workingDirectory);
      mkdirSync(stackDir, { recursive: true });
      const manifest = resolveTokens(server, desired());
      writeFileSync(join(stackDir, MANIFEST_FILE_NAME), `${JSON.stringify(manifest, null, 2)}\n`);
    },
  });
}
