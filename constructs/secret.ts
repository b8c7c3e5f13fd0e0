// Secret props: how a secret given to a construct reaches `keyward apply` without ever being written
// to cdktf.out, Terraform state or the manifest. Only an env var name and a fingerprint are kept.

import { DefaultTokenResolver, StringConcat, TerraformStack, TerraformVariable, Token, Tokenization } from 'cdktf';
import { Construct } from 'constructs';
import { createHash } from 'node:crypto';

/**
 * A secret value: a plain string that is also present in an environment variable of the process
 * that runs `cdktf deploy` / `keyward apply` (for example `process.env.CLOUD_CREDENTIALS`), or the
 * `stringValue` of a sensitive `TerraformVariable`.
 */
export type SecretString = string;

/** How one secret travels: by environment variable, never by value. */
export interface SecretBinding {
  /** Manifest field that holds the secret (for messages). */
  readonly field: string;
  /** Environment variable `keyward apply` reads the value from. */
  readonly env: string;
  /** Plain value, kept in memory only, to compute the fingerprint at synth time. */
  readonly plainValue?: string;
  /**
   * Terraform expression for the value (a variable reference); the provisioner's environment block
   * sets `env` from it. Absent for plain values: the provisioner inherits the process environment.
   */
  readonly tfValue?: string;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Resolves a token to its Terraform expression text, e.g. "${var.creds}". */
function expressionOf(scope: Construct, token: string): string {
  const resolved: unknown = Tokenization.resolve(token, {
    scope,
    preparing: false,
    resolver: new DefaultTokenResolver(new StringConcat()),
  });
  return String(resolved);
}

function findVariable(scope: Construct, name: string): TerraformVariable | undefined {
  return TerraformStack.of(scope)
    .node.findAll()
    .find((c): c is TerraformVariable => c instanceof TerraformVariable && c.friendlyUniqueId === name);
}

/** Names of the environment variables that hold exactly `value` (sorted, TF_VAR_ names last). */
function envNamesHolding(value: string): string[] {
  return Object.keys(process.env)
    .filter((k) => ENV_NAME.test(k) && process.env[k] === value)
    .sort((a, b) => Number(a.startsWith('TF_VAR_')) - Number(b.startsWith('TF_VAR_')) || a.localeCompare(b));
}

/**
 * Works out how a secret prop reaches the provisioner. Returns the binding, or a problem message
 * (the caller adds it to its validation failures). The message never quotes the value.
 */
export function bindSecret(scope: Construct, field: string, value: SecretString): SecretBinding | { problem: string } {
  if (Token.isUnresolved(value)) {
    const expr = expressionOf(scope, value);
    const m = /^\$\{var\.([A-Za-z_][\w-]*)\}$/.exec(expr);
    if (!m) {
      return { problem: `${field}: a secret token must be the stringValue of a sensitive TerraformVariable (got the expression ${expr})` };
    }
    const variable = findVariable(scope, m[1]);
    if (variable && variable.sensitive !== true) {
      return { problem: `${field}: TerraformVariable "${m[1]}" must be declared with sensitive: true, or Terraform may print its value` };
    }
    const env = ENV_NAME.test(`TF_VAR_${m[1]}`) ? `TF_VAR_${m[1]}` : `KEYWARD_SECRET_${createHash('sha256').update(m[1]).digest('hex').slice(0, 12).toUpperCase()}`;
    return { field, env, tfValue: expr };
  }
  if (typeof value !== 'string' || value === '') {
    return { problem: `${field}: a secret must be a non-empty string or a sensitive TerraformVariable's stringValue` };
  }
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
