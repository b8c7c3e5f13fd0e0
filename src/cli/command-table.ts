// The reconciling commands and their flags, declared once. Commander's registration, each command's
// flag type (PlanFlags, ApplyFlags, …), its --help and the "to apply this plan" hint of
// `keyward plan` are all derived from these two tables: a new `keyward plan` flag is one entry in
// FLAGS, its id in COMMANDS.plan.flags and the code that reads it (plus `toApply` when `keyward
// apply` must repeat it). Commander only: this file loads for every run, `--help` included, so it
// must not import the engine, the client or an SDK (a command's work is required when it runs).

import { Command, Option } from 'commander';

/** One flag: commander's spelling (`--name <arg>` takes a value, `--name` is a switch) and its help. */
export interface FlagSpec {
  readonly flag: `--${string}`;
  readonly help: string;
  readonly choices?: readonly string[];
  readonly default?: string;
  /** Given several times, collected in order. */
  readonly repeatable?: boolean;
  /** `keyward apply` needs it again to apply what `keyward plan` showed: the hint repeats it. */
  readonly toApply?: boolean;
}

/** Kept here (not imported from the client) so `--help` loads no client code. */
const DIALECTS = ['keyward', 'vault'] as const;
const FORMATS = ['text', 'markdown', 'json'] as const;

export const FLAGS = {
  // Desired state (plan, apply, destroy).
  manifest: { flag: '--manifest <file>', help: 'desired state: a keyward manifest file', toApply: true },
  dir: { flag: '--dir <cdktf.out>', help: 'desired state: a synthesized cdktf output directory', toApply: true },
  app: {
    flag: '--app <command>',
    help: "desired state: run this command with CDKTF_OUTDIR set, then read its output (default in a cdktf project: cdktf.json's app)",
    toApply: true,
  },
  stack: { flag: '--stack <name>', help: 'stack to use when the output holds several', toApply: true },
  lastApplied: { flag: '--last-applied <file>', help: 'last-applied record file (default: beside the manifest or the synthesized output)', toApply: true },
  lastAppliedEnv: { flag: '--last-applied-env <var>', help: 'read the last-applied record (or previous manifest) as JSON from this environment variable', toApply: true },
  record: {
    flag: '--record <kind>',
    help: "what was applied, for a synthesized stack: terraform (the stack's Terraform state, after cdktf deploy) or keyward (keyward apply's record file) (default: the one that exists; both is an error)",
    choices: ['terraform', 'keyward'],
    toApply: true,
  },
  // The server (every command that connects).
  dialect: {
    flag: '--dialect <dialect>',
    help: "names the server speaks: keyward (the embedded engine) or vault (Vault Enterprise, OpenBao) (default: $KEYWARD_DIALECT, then the manifest's server.dialect, then detected from sys/health)",
    choices: DIALECTS,
  },
  address: {
    flag: '--address <url>',
    help: "server address (default: the manifest's address, then $VAULT_ADDR, then http://127.0.0.1:8200; a different $VAULT_ADDR is refused: the token is sent to neither)",
  },
  snapshotAddress: {
    flag: '--snapshot-address <url>',
    help: "where snapshot configs go: a `keyward snapshot-agent` for a server without automated snapshots (default: the manifest's server.snapshotAddress, then $KEYWARD_SNAPSHOT_ADDR, then --address; a different $KEYWARD_SNAPSHOT_ADDR is refused)",
  },
  cloudPlugin: {
    flag: '--cloud-plugin <name>',
    help: "the auth method type cloud mounts have on the server: on OpenBao the name the GCP plugin was registered under (default: $KEYWARD_CLOUD_PLUGIN, then the manifest's server.cloudPlugin, then gcp on Vault and OpenBao, cloud on the engine)",
  },
  namespace: { flag: '--namespace <ns>', help: 'namespace (default: the manifest, then $VAULT_NAMESPACE; the root namespace if neither)' },
  caCert: { flag: '--ca-cert <file>', help: 'PEM file of the CA to trust (default: $VAULT_CACERT)' },
  tlsSkipVerify: { flag: '--tls-skip-verify', help: 'do not verify the server certificate (testing only; default: $VAULT_SKIP_VERIFY)' },
  parallelism: { flag: '--parallelism <n>', help: 'concurrent requests', default: '16' },
  // What plan shows and saves.
  showServerNames: { flag: '--show-server-names', help: "show field names and values as the server spells them (Vault's gce_*, aws_s3_*, …) instead of keyward's" },
  resend: {
    flag: '--resend <object>',
    help: "send this object's declared secrets even where the server holds its own (a key Vault rotated); the object id as the plan shows it, e.g. auth/cloud/config (repeatable)",
    repeatable: true,
    toApply: true,
  },
  format: { flag: '--format <format>', help: 'output format', choices: FORMATS, default: 'text' },
  out: { flag: '--out <file>', help: 'save the plan for `keyward apply --plan FILE`' },
  detailedExitcode: { flag: '--detailed-exitcode', help: 'exit 0 when there are no changes, 2 when there are, 1 on error' },
  planOnly: {
    flag: '--plan-only',
    help: 'plan without secrets: an unset secret variable is taken as unchanged and the plan lists it (default: $KEYWARD_PLAN_ONLY); such a plan cannot be saved or applied',
  },
  // Review: what a pull request's plan asks of the plan and apply that follow it.
  failOn: {
    flag: '--fail-on <labels>',
    help: "exit 4, naming the objects, when a change carries one of these meaning labels (comma-separated: broadens-access, narrows-access, credential-destination, reduces-backups, locks-out, revokes-tokens, interrupts-logins, needs-review) (default: cdktf.json's keyward.failOn)",
  },
  expectDigest: {
    flag: '--expect-digest <digest|file>',
    help: 'refuse unless the plan makes the decisions that were reviewed: the digest a reviewed plan printed (sha256:…), or a file with the reviewed plan (its JSON, or the Markdown comment); a mismatch names the objects that differ',
  },
  // Changing the server.
  autoApprove: { flag: '--auto-approve', help: 'do not ask for confirmation before changing the server (needed without a terminal)' },
  plan: { flag: '--plan <file>', help: 'apply a plan saved by `keyward plan --out FILE` without asking (refused if the server changed since)' },
  // import.
  mount: { flag: '--mount <path>', help: 'the cloud auth mount to import (its config and every role)' },
  snapshots: { flag: '--snapshots', help: 'import every automated snapshot configuration' },
  module: { flag: '--module <specifier>', help: 'module the constructs are imported from', default: 'keyward/constructs' },
  importStack: { flag: '--stack <name>', help: 'stack name in the generated app', default: 'imported' },
  importOut: { flag: '--out <file>', help: 'write the code to a file instead of stdout' },
  // show.
  applyCommand: { flag: '--apply-command <command>', help: 'the command the Markdown names for applying the plan', default: 'terraform apply tfplan' },
} as const satisfies Record<string, FlagSpec>;

export type FlagId = keyof typeof FLAGS;

const SOURCE = ['manifest', 'dir', 'app', 'stack', 'lastApplied', 'lastAppliedEnv', 'record'] as const satisfies readonly FlagId[];
const CONNECTION = ['dialect', 'address', 'snapshotAddress', 'cloudPlugin', 'namespace', 'caCert', 'tlsSkipVerify', 'parallelism'] as const satisfies readonly FlagId[];

export interface CommandSpec {
  readonly description: string;
  /** A positional argument: commander's spelling and its help. */
  readonly argument?: readonly [string, string];
  readonly flags: readonly FlagId[];
}

export const COMMANDS = {
  plan: {
    description: 'Show what apply would change on the server (no writes)',
    flags: [...SOURCE, ...CONNECTION, 'showServerNames', 'resend', 'format', 'out', 'detailedExitcode', 'planOnly', 'failOn', 'expectDigest'],
  },
  show: {
    description: "Render a saved Terraform plan's JSON (terraform show -json tfplan) as keyward's plan: text, Markdown or JSON",
    argument: ['<file>', 'the JSON of `terraform show -json <saved plan>`, or - for standard input'],
    flags: ['format', 'detailedExitcode', 'applyCommand', 'failOn', 'expectDigest'],
  },
  apply: {
    description: 'Apply the desired state to the server, then verify it converged',
    flags: [...SOURCE, ...CONNECTION, 'autoApprove', 'resend', 'plan', 'expectDigest'],
  },
  destroy: { description: 'Delete every object the stack manages from the server', flags: [...SOURCE, ...CONNECTION, 'autoApprove'] },
  import: {
    description: 'Print construct code (TypeScript) for an existing auth mount or the snapshot configs',
    flags: [...CONNECTION, 'mount', 'snapshots', 'module', 'importStack', 'importOut'],
  },
} as const satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof COMMANDS;

// ---- Types derived from the tables ----

type Camel<S extends string> = S extends `${infer A}-${infer B}` ? `${A}${Capitalize<Camel<B>>}` : S;
/** `--last-applied <file>` → `lastApplied`: the property commander gives the flag's value. */
type PropOf<F extends string> = F extends `--${infer N} <${string}>` ? Camel<N> : F extends `--${infer N}` ? Camel<N> : never;
type ValueOf<S extends FlagSpec> = S extends { repeatable: true }
  ? string[]
  : S extends { choices: readonly (infer C)[] }
    ? C
    : S['flag'] extends `${string}<${string}>`
      ? string
      : boolean;
type SpecOf<Id extends FlagId> = (typeof FLAGS)[Id];
type WithDefault<Ids extends FlagId> = { [Id in Ids]: SpecOf<Id> extends { default: string } ? Id : never }[Ids];

/** The flags object commander hands a command's action: optional unless the flag has a default. */
export type FlagsOf<Ids extends FlagId> = { [Id in Exclude<Ids, WithDefault<Ids>> as PropOf<SpecOf<Id>['flag']>]?: ValueOf<SpecOf<Id>> } & {
  [Id in WithDefault<Ids> as PropOf<SpecOf<Id>['flag']>]: ValueOf<SpecOf<Id>>;
};
export type CommandFlags<C extends CommandName> = FlagsOf<(typeof COMMANDS)[C]['flags'][number]>;

// ---- Registration, help ----

/** `--last-applied <file>` → `lastApplied`, as commander names the value (PropOf at run time). */
export function propOf(flag: string): string {
  const name = /^--([\w-]+)/.exec(flag)?.[1] ?? flag;
  return name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
}

export function addFlag(c: Command, id: FlagId): Command {
  const spec: FlagSpec = FLAGS[id];
  const o = new Option(spec.flag, spec.help);
  if (spec.choices) o.choices([...spec.choices]);
  if (spec.default !== undefined) o.default(spec.default);
  if (spec.repeatable) o.argParser((v: string, prev: string[] = []) => [...prev, v]);
  return c.addOption(o);
}

/**
 * Adds a table command to the program: its description, argument, flags and a usage error that
 * names `--help` in one line (not the whole help). `action` gets the argument (if any) and the flags.
 */
export function registerCommand(program: Command, name: CommandName, action: (...args: never[]) => Promise<void>): Command {
  const spec: CommandSpec = COMMANDS[name];
  const c = program.command(name).description(spec.description).showHelpAfterError(usageHint(name));
  if (spec.argument) c.argument(spec.argument[0], spec.argument[1]);
  for (const id of spec.flags) addFlag(c, id);
  return c.action(action as (...args: unknown[]) => Promise<void>);
}

/** The one line a usage error ends with. */
export const usageHint = (command?: string) => `Run \`keyward ${command ? `${command} ` : ''}--help\` for usage.`;

// ---- The "to apply this plan" hint ----

/** Shell-quotes a word only when it needs it, so the hint reads like what a user would type. */
const word = (s: string) => (/^[\w./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/**
 * The command that applies what a `keyward plan` run shows: Terraform's deploy (a stack compared
 * with its Terraform state), the saved plan (--out), or `keyward apply` with every plan flag the
 * table marks `toApply`, in the table's order.
 */
export function applyCommandFor(flags: CommandFlags<'plan'>, src?: { origin: { kind: string }; stack?: string }): string {
  if (src?.origin.kind === 'terraform-state') return `cdktf deploy${src.stack ? ` ${word(src.stack)}` : ''}`;
  if (flags.out) return `keyward apply --plan ${word(flags.out)}`;
  const args = ['keyward', 'apply'];
  const values = flags as Record<string, unknown>;
  for (const id of COMMANDS.plan.flags) {
    const spec: FlagSpec = FLAGS[id];
    if (!spec.toApply) continue;
    const long = spec.flag.split(' ')[0];
    const value = values[propOf(spec.flag)];
    for (const v of Array.isArray(value) ? value : value === undefined || value === false ? [] : [value]) {
      args.push(long, ...(v === true ? [] : [word(String(v))]));
    }
  }
  return args.join(' ');
}
