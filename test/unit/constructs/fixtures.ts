// Shared fixtures for construct tests: a stack with a server, a real service-account key, and a
// helper that returns the problems a construction throws.

import { Testing, TerraformStack } from 'cdktf';
import type { Construct } from 'constructs';
import { generateKeyPairSync } from 'node:crypto';
import { KeywardServer } from '../../../constructs';
import { KeywardValidationError } from '../../../constructs/validation';

export function newStack(id = 'test'): { stack: TerraformStack; server: KeywardServer } {
  const app = Testing.app();
  const stack = new TerraformStack(app, id);
  const server = new KeywardServer(stack, 'server', { address: 'http://127.0.0.1:8200' });
  return { stack, server };
}

/** A KeywardServer in another stack of the same app as `c` (for cross-stack reference cases). */
export function serverInOtherStack(c: Construct): KeywardServer {
  return new KeywardServer(new TerraformStack(c.node.root, 'other'), 'server', { address: 'http://127.0.0.1:8200' });
}

/** A syntactically real service-account key JSON (fresh RSA key). */
export function serviceAccountKeyJson(email = 'deployer@proj.iam.gserviceaccount.com'): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
  return JSON.stringify({
    type: 'service_account',
    project_id: 'proj',
    private_key_id: 'k1',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: email,
    client_id: '1234',
  });
}

/** Runs a construction and returns the validation problems it threw ([] when it did not throw). */
export function problemsOf(fn: () => unknown): readonly string[] {
  try {
    fn();
    return [];
  } catch (e) {
    if (KeywardValidationError.isKeywardValidationError(e)) return e.problems;
    throw e;
  }
}

/** Sets environment variables for the duration of a test file (secrets must come from the environment). */
export function withEnv(vars: Record<string, string>): void {
  const saved: Record<string, string | undefined> = {};
  beforeAll(() => {
    for (const [k, v] of Object.entries(vars)) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
  });
  afterAll(() => {
    for (const k of Object.keys(vars)) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });
}
