// `keyward plan`: compare the desired state with the live server and print the plan (text,
// Markdown or JSON); --out saves it for `apply --plan`; --detailed-exitcode gives 0/2/1.
// Also holds the options and session setup that apply, destroy and import share.

import { Command, Option } from 'commander';
import { VaultClient } from '../../client/vault-client';
import { settingsFromEnv } from '../../client/options';
import { desiredFromManifest } from '../../reconcile/desired';
import { hasChanges, type Plan } from '../../reconcile/model';
import { makePlan } from '../../reconcile/plan';
import { savePlanFile } from '../../reconcile/plan-file';
import { renderJson } from '../../reconcile/render-json';
import { renderMarkdown } from '../../reconcile/render-markdown';
import { renderText } from '../../reconcile/render-text';
import { loadSource, type SourceOptions } from '../../reconcile/source';
import { inServerNames } from '../../reconcile/server-names';
import type { ServerDialect } from '../../client/options';
import { addDialectOption, addShowServerNamesOption, type DialectFlags } from './dialect-option';

export interface ConnectionFlags extends DialectFlags {
  address?: string;
  namespace?: string;
  caCert?: string;
  tlsSkipVerify?: boolean;
  parallelism?: string;
}

export function addConnectionOptions(c: Command): Command {
  return addDialectOption(c)
    .option('--address <url>', 'server address (default: $VAULT_ADDR, then the manifest, then http://127.0.0.1:8200)')
    .option('--namespace <ns>', 'namespace (default: $VAULT_NAMESPACE, then the manifest)')
    .option('--ca-cert <file>', 'PEM file of the CA to trust (default: $VAULT_CACERT)')
    .option('--tls-skip-verify', 'do not verify the server certificate (testing only; default: $VAULT_SKIP_VERIFY)')
    .option('--parallelism <n>', 'concurrent requests', '16');
}

export function addSourceOptions(c: Command): Command {
  return c
    .option('--manifest <file>', 'desired state: a keyward manifest file')
    .option('--dir <cdktf.out>', 'desired state: a synthesized cdktf output directory')
    .option('--app <command>', 'desired state: run this command with CDKTF_OUTDIR set, then read its output')
    .option('--stack <name>', 'stack to use when the output holds several')
    .option('--last-applied <file>', 'last-applied record file (default: beside the manifest or the synthesized output)')
    .option('--last-applied-env <var>', 'read the last-applied record (or previous manifest) as JSON from this environment variable');
}

/** A client for the session; the token only ever comes from $VAULT_TOKEN. Retries are reported on stderr. */
export function openClient(flags: ConnectionFlags, manifestServer: { address?: string; namespace?: string; dialect?: ServerDialect } = {}): VaultClient {
  const settings = settingsFromEnv(
    { address: flags.address, namespace: flags.namespace, caFile: flags.caCert, tlsSkipVerify: flags.tlsSkipVerify, dialect: flags.dialect },
    process.env,
    manifestServer,
  );
  settings.connections = Math.max(8, parallelismOf(flags) * 2);
  return new VaultClient(settings, {
    onRetry: (e) =>
      process.stderr.write(`retry ${e.method} /v1/${e.path}: attempt ${e.attempt} got ${e.status === 0 ? 'no response' : `HTTP ${e.status}`}, waiting ${e.delayMs} ms\n`),
  });
}

export function parallelismOf(flags: ConnectionFlags): number {
  const n = Number(flags.parallelism ?? '16');
  if (!Number.isInteger(n) || n < 1 || n > 256) throw new Error(`--parallelism must be an integer from 1 to 256, got ${JSON.stringify(flags.parallelism)}`);
  return n;
}

export type Format = 'text' | 'markdown' | 'json';

export function render(plan: Plan, format: Format): string {
  return format === 'json' ? renderJson(plan) : format === 'markdown' ? renderMarkdown(plan) : renderText(plan);
}

type PlanFlags = SourceOptions & ConnectionFlags & { format: Format; out?: string; detailedExitcode?: boolean; showServerNames?: boolean };

export async function runPlan(flags: PlanFlags, write: (s: string) => void = (s) => process.stdout.write(s)): Promise<number> {
  const src = loadSource(flags);
  const desired = desiredFromManifest(src.manifest);
  const client = openClient(flags, src.manifest.server);
  try {
    const { plan } = await makePlan(client, desired, src.record, { parallelism: parallelismOf(flags) });
    write(render(flags.showServerNames ? inServerNames(plan, await client.translator()) : plan, flags.format));
    if (flags.out) savePlanFile(flags.out, plan, desired, src.recordPath);
    return flags.detailedExitcode && hasChanges(plan) ? 2 : 0;
  } finally {
    await client.close();
  }
}

export function registerPlan(program: Command): void {
  const c = program.command('plan').description('Show what apply would change on the server (no writes)');
  addSourceOptions(c);
  addConnectionOptions(c);
  addShowServerNamesOption(c);
  c.addOption(new Option('--format <format>', 'output format').choices(['text', 'markdown', 'json']).default('text'))
    .option('--out <file>', 'save the plan for `keyward apply --plan FILE`')
    .option('--detailed-exitcode', 'exit 0 when there are no changes, 2 when there are, 1 on error')
    .action(async (flags: PlanFlags) => {
      process.exitCode = await runPlan(flags);
    });
}
