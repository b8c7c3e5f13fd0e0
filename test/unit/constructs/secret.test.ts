// How secret props are bound: plain values by the environment variable that holds them, tokens by
// their sensitive TerraformVariable; problems never quote the value.

import { Testing, TerraformVariable, TerraformLocal } from 'cdktf';
import { CloudAuthBackend } from '../../../constructs';
import { bindSecret, isSecretProblem, secretFromEnv } from '../../../constructs/secret';
import { newStack, withEnv } from './fixtures';

withEnv({ KW_SECRET_B: 'shared-value', KW_SECRET_A: 'shared-value', TF_VAR_also: 'shared-value' });

describe('bindSecret', () => {
  it('binds a plain value to the environment variable holding it (stable choice, TF_VAR_ last)', () => {
    const { stack } = newStack();
    expect(bindSecret(stack, 'f', 'shared-value')).toEqual({ field: 'f', env: 'KW_SECRET_A', plainValue: 'shared-value' });
  });

  it('refuses a plain value that no environment variable holds, without quoting it', () => {
    const { stack } = newStack();
    const b = bindSecret(stack, 'f', 'nowhere-secret');
    expect(isSecretProblem(b) && b.problem).toMatch(/^f: the secret value is not in any environment variable/);
    expect(JSON.stringify(b)).not.toContain('nowhere-secret');
    expect(isSecretProblem(bindSecret(stack, 'f', ''))).toBe(true);
  });

  it('binds a sensitive variable to TF_VAR_<name> with its Terraform expression', () => {
    const { stack } = newStack();
    const v = new TerraformVariable(stack, 'creds', { type: 'string', sensitive: true });
    expect(bindSecret(stack, 'f', v.stringValue)).toEqual({ field: 'f', env: 'TF_VAR_creds', tfValue: '${var.creds}' });
    const dashed = new TerraformVariable(stack, 'my-key', { type: 'string', sensitive: true });
    expect(bindSecret(stack, 'f', dashed.stringValue)).toMatchObject({ env: expect.stringMatching(/^KEYWARD_SECRET_[0-9A-F]{12}$/), tfValue: '${var.my-key}' });
  });

  it('refuses other tokens', () => {
    const { stack } = newStack();
    const local = new TerraformLocal(stack, 'l', 'x');
    const b = bindSecret(stack, 'f', local.asString);
    expect(isSecretProblem(b) && b.problem).toMatch(/must be the stringValue of a sensitive or ephemeral TerraformVariable \(got the expression \$\{local\.l\}\)/);
  });
});

describe('secrets from unset environment variables', () => {
  it('secretFromEnv names the unset variable', () => {
    delete process.env.GCP_AUTH_CREDENTIALS;
    expect(() => secretFromEnv('GCP_AUTH_CREDENTIALS')).toThrow(/^GCP_AUTH_CREDENTIALS is not set/);
  });

  it('secretFromEnv binds to the named variable even when another holds the same value', () => {
    const { stack } = newStack();
    process.env.KW_SECRET_Z = 'shared-value';
    try {
      expect(bindSecret(stack, 'f', secretFromEnv('KW_SECRET_Z'))).toEqual({ field: 'f', env: 'KW_SECRET_Z', plainValue: 'shared-value' });
    } finally {
      delete process.env.KW_SECRET_Z;
    }
  });

  it('in plan-only mode (KEYWARD_PLAN_ONLY=1) an unset variable is named, with no value and no format check', () => {
    delete process.env.GCP_AUTH_CREDENTIALS;
    process.env.KEYWARD_PLAN_ONLY = '1';
    try {
      const { stack, server } = newStack();
      const creds = secretFromEnv('GCP_AUTH_CREDENTIALS');
      expect(bindSecret(stack, 'config.credentials', creds)).toEqual({ field: 'config.credentials', env: 'GCP_AUTH_CREDENTIALS' });
      // The backend synthesizes (its credentials format check skips the stand-in), naming the variable only.
      new CloudAuthBackend(stack, 'cloud', { server, config: { credentials: creds } });
      const tf = JSON.parse(Testing.synth(stack)) as { resource: { keyward_cloud_auth_backend: Record<string, { config: Record<string, unknown> }> } };
      expect(Object.values(tf.resource.keyward_cloud_auth_backend)[0].config).toEqual({ credentials_env: 'GCP_AUTH_CREDENTIALS' });
    } finally {
      delete process.env.KEYWARD_PLAN_ONLY;
    }
  });

  it('refuses an undefined secret (process.env.X unset) instead of resetting the server', () => {
    const { stack } = newStack();
    const b = bindSecret(stack, 'config.credentials', undefined);
    expect(isSecretProblem(b) && b.problem).toMatch(/^config\.credentials: the secret is undefined/);
  });

  it('accepts an ephemeral variable', () => {
    const { stack } = newStack();
    const v = new TerraformVariable(stack, 'eph', { type: 'string' });
    v.addOverride('ephemeral', true);
    expect(bindSecret(stack, 'f', v.stringValue)).toEqual({ field: 'f', env: 'TF_VAR_eph', tfValue: '${var.eph}' });
  });
});
