// Every option the reconciling commands share, declared in one place so help text, docs/cli.md's
// command table and new options (added by one edit here) stay in step. Commander only: this file is
// loaded for every run, including `--help`, so it must not import the engine, client or SDKs.

import { Command, Option } from 'commander';
import type { SourceOptions } from '../reconcile/source';

/** Kept here (not imported from the client) so `--help` loads no client code. */
const DIALECTS = ['keyward', 'vault'] as const;

export interface DialectFlags {
  dialect?: (typeof DIALECTS)[number];
}

export interface ConnectionFlags extends DialectFlags {
  address?: string;
  snapshotAddress?: string;
  cloudPlugin?: string;
  namespace?: string;
  caCert?: string;
  tlsSkipVerify?: boolean;
  parallelism?: string;
}

export interface ApproveFlags {
  autoApprove?: boolean;
}

export type Format = 'text' | 'markdown' | 'json';

export type SourceFlags = SourceOptions;
export type PlanFlags = SourceFlags & ConnectionFlags & ResendFlags & { format: Format; out?: string; detailedExitcode?: boolean; showServerNames?: boolean; planOnly?: boolean };
export type ApplyFlags = SourceFlags & ConnectionFlags & ApproveFlags & ResendFlags & { plan?: string };

export interface ResendFlags {
  resend?: string[];
}

export function addResendOption(c: Command): Command {
  return c.option(
    '--resend <object>',
    "send this object's declared secrets even where the server holds its own (a key Vault rotated); the object id as the plan shows it, e.g. auth/cloud/config (repeatable)",
    (v: string, prev: string[] = []) => [...prev, v],
  );
}
export type DestroyFlags = SourceFlags & ConnectionFlags & ApproveFlags;

export function addDialectOption(c: Command): Command {
  return c.addOption(
    new Option(
      '--dialect <dialect>',
      "names the server speaks: keyward (the embedded engine) or vault (Vault Enterprise, OpenBao) (default: $KEYWARD_DIALECT, then the manifest's server.dialect, then detected from sys/health)",
    ).choices([...DIALECTS]),
  );
}

export function addShowServerNamesOption(c: Command): Command {
  return c.option('--show-server-names', "show field names and values as the server spells them (Vault's gce_*, aws_s3_*, …) instead of keyward's");
}

export function addConnectionOptions(c: Command): Command {
  return addDialectOption(c)
    .option(
      '--address <url>',
      "server address (default: the manifest's address, then $VAULT_ADDR, then http://127.0.0.1:8200; a different $VAULT_ADDR is refused: the token is sent to neither)",
    )
    .option(
      '--snapshot-address <url>',
      "where snapshot configs go: a `keyward snapshot-agent` for a server without automated snapshots (default: the manifest's server.snapshotAddress, then $KEYWARD_SNAPSHOT_ADDR, then --address; a different $KEYWARD_SNAPSHOT_ADDR is refused)",
    )
    .option(
      '--cloud-plugin <name>',
      "the auth method type cloud mounts have on the server: on OpenBao the name the GCP plugin was registered under (default: $KEYWARD_CLOUD_PLUGIN, then the manifest's server.cloudPlugin, then gcp on Vault and OpenBao, cloud on the engine)",
    )
    .option('--namespace <ns>', 'namespace (default: the manifest, then $VAULT_NAMESPACE; the root namespace if neither)')
    .option('--ca-cert <file>', 'PEM file of the CA to trust (default: $VAULT_CACERT)')
    .option('--tls-skip-verify', 'do not verify the server certificate (testing only; default: $VAULT_SKIP_VERIFY)')
    .option('--parallelism <n>', 'concurrent requests', '16');
}

export function addSourceOptions(c: Command): Command {
  return c
    .option('--manifest <file>', 'desired state: a keyward manifest file')
    .option('--dir <cdktf.out>', 'desired state: a synthesized cdktf output directory')
    .option('--app <command>', "desired state: run this command with CDKTF_OUTDIR set, then read its output (default in a cdktf project: cdktf.json's app)")
    .option('--stack <name>', 'stack to use when the output holds several')
    .option('--last-applied <file>', 'last-applied record file (default: beside the manifest or the synthesized output)')
    .option('--last-applied-env <var>', 'read the last-applied record (or previous manifest) as JSON from this environment variable')
    .addOption(
      new Option(
        '--record <kind>',
        "what was applied, for a synthesized stack: terraform (the stack's Terraform state, after cdktf deploy) or keyward (keyward apply's record file) (default: the one that exists; both is an error)",
      ).choices(['terraform', 'keyward']),
    );
}

export function addApproveOption(c: Command): Command {
  return c.option('--auto-approve', 'do not ask for confirmation before changing the server (needed without a terminal)');
}

export function addPlanOutputOptions(c: Command): Command {
  return c
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'markdown', 'json']).default('text'))
    .option('--out <file>', 'save the plan for `keyward apply --plan FILE`')
    .option('--detailed-exitcode', 'exit 0 when there are no changes, 2 when there are, 1 on error')
    .option(
      '--plan-only',
      'plan without secrets: an unset secret variable is taken as unchanged and the plan lists it (default: $KEYWARD_PLAN_ONLY); such a plan cannot be saved or applied',
    );
}
