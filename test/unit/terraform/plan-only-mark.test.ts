// A plan made in plan-only mode (KEYWARD_PLAN_ONLY) is never applied, change or no change. Terraform
// calls no apply for an unchanged resource and reads the environment anew at apply time, so the
// mark travels in the saved plan as the provider block's `plan_only` (set by synth) and the
// provider refuses it when configured outside plan-only mode.

import { Testing } from 'cdktf';
import { keywardProvider } from '../../../src/terraform/keyward-provider';
import { newStack } from '../constructs/fixtures';

const CONFIG = { address: 'http://127.0.0.1:1', namespace: null, ca_cert_file: null, skip_tls_verify: null, dialect: 'keyward', fingerprint_salt: 'salt-0123456789abcdef' };

test('configuring with the plan-only mark outside plan-only mode is refused (the apply of a saved plan-only plan)', async () => {
  const p = keywardProvider({ env: { VAULT_TOKEN: 't', VAULT_MAX_RETRIES: '0' } });
  await expect(p.configure({ ...CONFIG, plan_only: true })).rejects.toMatchObject({
    diagnostics: [expect.objectContaining({ severity: 'error', summary: 'A plan-only configuration cannot be applied', attribute: ['plan_only'] })],
  });
  await p.stop?.();
});

test('in plan-only mode the marked configuration configures (the plan itself)', async () => {
  const p = keywardProvider({ env: { VAULT_TOKEN: 't', VAULT_MAX_RETRIES: '0', KEYWARD_PLAN_ONLY: '1' } });
  await expect(p.configure({ ...CONFIG, plan_only: true })).resolves.toBeDefined();
  await p.stop?.();
});

test('synth in plan-only mode marks the provider block; without it, no mark', () => {
  const synthBlock = () => {
    const { stack } = newStack('p');
    return (JSON.parse(Testing.synth(stack)) as { provider: { keyward: Record<string, unknown>[] } }).provider.keyward[0];
  };
  expect(synthBlock().plan_only).toBeUndefined();
  process.env.KEYWARD_PLAN_ONLY = '1';
  try {
    expect(synthBlock().plan_only).toBe(true);
  } finally {
    delete process.env.KEYWARD_PLAN_ONLY;
  }
});
