// Secret props: how a secret given to a construct reaches the keyward provider without ever being
// written to cdktf.out, Terraform state or the manifest. A plain value travels by the name of the
// environment variable that holds it (`<field>_env`); a sensitive or ephemeral TerraformVariable
// feeds a Terraform >= 1.11 write-only attribute (`<field>_wo` + `<field>_wo_version`).

import { Construct } from 'constructs';
import { createHash } from 'node:crypto';
import { ENV_NAME } from '../src/schema/manifest';
import { isPlanOnly } from '../src/schema/plan-only';
import { synthError } from './synth-error';
import { DefaultTokenResolver, StringConcat, TerraformStack, TerraformVariable, Token, Tokenization, type TerraformVariableType } from './cdk';

/**
 * A secret value: `process.env.NAME` (the value of an environment variable of the process that
 * runs `cdktf deploy`; `secretFromEnv('NAME')` says which one explicitly), or the `stringValue` of
 * a sensitive or ephemeral `TerraformVariable`.
 */
export type SecretString = string;

/** How one secret travels: by environment variable name, or as a write-only Terraform expression. */
export interface SecretBinding {
  /** Wire field that holds the secret (e.g. "credentials", "cloudone_secret_access_key"). */
  readonly field: string;
  /** Environment variable the provider (and `keyward apply`) reads the value from. */
  readonly env: string;
  /** Plain value, kept in memory only, for the manifest's fingerprint. */
  readonly plainValue?: string;
  /** Terraform expression of a variable secret ("${var.x}"): it feeds `<field>_wo`. */
  readonly tfValue?: string;
}

/** Values returned by secretFromEnv, and the variable each came from. */
const explicitNames = new Map<string, string>();
/** Stand-ins secretFromEnv returns in plan-only mode for unset variables, and their names. */
const unsetNames = new Map<string, string>();

/** Whether a secret prop is the stand-in of an unset variable (plan-only mode): nothing to validate. */
export const isUnsetSecret = (value: unknown): boolean => typeof value === 'string' && unsetNames.has(value);

/**
 * The value of environment variable `name`, for a secret prop: synthesis then names that variable
 * in the provider config. Throws "NAME is not set" when it is unset or empty: an absent secret
 * would otherwise mean "reset to the server default". In plan-only mode (KEYWARD_PLAN_ONLY=1) an
 * unset variable gives a stand-in: the variable is named, no fingerprint is written, and the plan
 * takes the secret as unchanged.
 */
export function secretFromEnv(name: string): SecretString {
  if (!ENV_NAME.test(name)) throw synthError(new Error(`secretFromEnv: ${JSON.stringify(name)} is not an environment variable name`));
  const value = process.env[name];
  if ((value === undefined || value === '') && isPlanOnly(process.env)) {
    const standIn = `keyward-unset-secret:${name}`;
    unsetNames.set(standIn, name);
    return standIn;
  }
  if (value === undefined || value === '')
    throw synthError(new Error(`${name} is not set: export it in the shell that runs cdktf (it holds a secret keyward passes to the server)`));
  explicitNames.set(value, name);
  return value;
}

/** Resolves a token to its Terraform expression text, e.g. "${var.creds}". */
function expressionOf(scope: Construct, token: string): string {
  const resolved: unknown = Tokenization.resolve(token, { scope, preparing: false, resolver: new DefaultTokenResolver(new StringConcat()) });
  return String(resolved);
}

function findVariable(scope: Construct, name: string): TerraformVariableType | undefined {
  return TerraformStack.of(scope)
    .node.findAll()
    .find((c): c is TerraformVariableType => c instanceof TerraformVariable && c.friendlyUniqueId === name);
}

/** Whether a variable is declared ephemeral (cdktf 0.21 has no prop for it: `addOverride('ephemeral', true)`). */
function isEphemeral(v: TerraformVariableType): boolean {
  return (v as unknown as { rawOverrides?: Record<string, unknown> }).rawOverrides?.ephemeral === true;
}

/** Names of the environment variables that hold exactly `value` (sorted, TF_VAR_ names last). */
function envNamesHolding(value: string): string[] {
  return Object.keys(process.env)
    .filter((k) => ENV_NAME.test(k) && process.env[k] === value)
    .sort((a, b) => Number(a.startsWith('TF_VAR_')) - Number(b.startsWith('TF_VAR_')) || a.localeCompare(b));
}

/**
 * Works out how a secret prop reaches the provider. Returns the binding, or a problem message
 * (the caller adds it to its validation failures). The message never quotes the value.
 */
export function bindSecret(scope: Construct, field: string, value: SecretString | undefined): SecretBinding | { problem: string } {
  if (value === undefined) {
    return {
      problem:
        `${field}: the secret is undefined; an unset environment variable (process.env.NAME) would reset the server's secret, so it is refused. ` +
        'Export the variable (or use secretFromEnv("NAME") for an error naming it), or leave the prop out to leave the secret unmanaged by value',
    };
  }
  if (Token.isUnresolved(value)) {
    const expr = expressionOf(scope, value);
    const m = /^\$\{var\.([A-Za-z_][\w-]*)\}$/.exec(expr);
    if (!m) return { problem: `${field}: a secret token must be the stringValue of a sensitive or ephemeral TerraformVariable (got the expression ${expr})` };
    const variable = findVariable(scope, m[1]);
    if (variable && variable.sensitive !== true && !isEphemeral(variable)) {
      return { problem: `${field}: TerraformVariable "${m[1]}" must be declared with sensitive: true (or be ephemeral), or Terraform may print its value` };
    }
    // Terraform writes the values of non-ephemeral variables, sensitive ones too, into saved plan
    // files (`cdktf diff` leaves one). The variable feeds only write-only attributes, so it is made
    // ephemeral: its value then reaches neither plan files nor state.
    if (variable && !isEphemeral(variable)) variable.addOverride('ephemeral', true);
    // The manifest (for `keyward apply`) reads the same value from Terraform's own variable environment.
    const env = ENV_NAME.test(`TF_VAR_${m[1]}`) ? `TF_VAR_${m[1]}` : `KEYWARD_SECRET_${createHash('sha256').update(m[1]).digest('hex').slice(0, 12).toUpperCase()}`;
    return { field, env, tfValue: expr };
  }
  if (typeof value !== 'string' || value === '') return { problem: `${field}: a secret must be a non-empty string or a sensitive TerraformVariable's stringValue` };
  const unset = unsetNames.get(value);
  if (unset !== undefined) return { field, env: unset };
  const explicit = explicitNames.get(value);
  if (explicit !== undefined && process.env[explicit] === value) return { field, env: explicit, plainValue: value };
  const names = envNamesHolding(value);
  if (names.length === 0) {
    return {
      problem:
        `${field}: the secret value is not in any environment variable, so the deploy could not pass it to keyward without writing it to disk; ` +
        'export it (for example CLOUD_CREDENTIALS) and pass process.env.CLOUD_CREDENTIALS, or use a sensitive TerraformVariable',
    };
  }
  return { field, env: names[0], plainValue: value };
}

export function isSecretProblem(b: SecretBinding | { problem: string }): b is { problem: string } {
  return 'problem' in b;
}

/**
 * The provider attributes of one secret: `<attr>_env`, or `<attr>_wo` with `<attr>_wo_version`
 * (Terraform sends a write-only value only when its version changes: bump it to rotate).
 */
export function secretAttributes(attr: string, b: SecretBinding, woVersion: number | string): Record<string, unknown> {
  return b.tfValue !== undefined ? { [`${attr}_wo`]: b.tfValue, [`${attr}_wo_version`]: woVersion } : { [`${attr}_env`]: b.env };
}
