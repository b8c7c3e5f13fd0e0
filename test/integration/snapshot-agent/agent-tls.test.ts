// The agent's API over HTTPS (--tls-cert-file / --tls-key-file), as a Vault listener: callers send
// it their Vault tokens, so plain HTTP beyond loopback is refused unless --tls-disable says so on
// purpose. keyward's client (the CLI's and the provider's) writes, LISTs and reads configs over it
// with the CA file it trusts.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VaultClient } from '../../../src/client/vault-client';
import { ROOT_TOKEN } from '../../support/engine';
import { writeLoopbackCert } from '../../support/loopback-cert';
import { AGENT_CONFIG, startAgentHarness, type AgentHarness } from '../../support/snapshot-agent';

let h: AgentHarness;
let dir: string;
beforeAll(async () => {
  h = await startAgentHarness();
  dir = mkdtempSync(join(tmpdir(), 'keyward-agent-tls-'));
});
afterAll(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

test('serves HTTPS with the given certificate: configs written, listed (LIST) and read through keyward client', async () => {
  const { certFile, keyFile } = writeLoopbackCert(dir);
  const a = await h.agent({ tlsCertFile: certFile, tlsKeyFile: keyFile });
  expect(a.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  const c = new VaultClient({ address: a.url, token: ROOT_TOKEN, dialect: 'keyward', caFile: certFile });
  try {
    await c.write(`${AGENT_CONFIG}/daily`, { storage_type: 'local', interval: 3600, path_prefix: join(dir, 'snaps'), local_max_space: 50_000_000 });
    expect(await c.list(AGENT_CONFIG)).toEqual(['daily']);
    expect(await c.read(`${AGENT_CONFIG}/daily`)).toMatchObject({ storage_type: 'local', interval: 3600 });
  } finally {
    await c.close();
  }
  // A client that does not trust the certificate gets no answer (the TLS handshake fails).
  await expect(fetch(`${a.url}/v1/sys/health`)).rejects.toThrow();
});

test('refuses plain HTTP beyond loopback, and half a TLS pair, naming the flags, before starting anything', async () => {
  const { certFile, keyFile } = writeLoopbackCert(dir);
  await expect(h.agent({ listen: '0.0.0.0:0' })).rejects.toThrow(
    '--listen "0.0.0.0:0" is reachable from other machines but no TLS is configured: set --tls-cert-file and --tls-key-file, or --tls-disable to serve plain HTTP there on purpose',
  );
  await expect(h.agent({ tlsCertFile: certFile })).rejects.toThrow('--tls-cert-file is set but --tls-key-file is not: both are needed to serve HTTPS');
  await expect(h.agent({ tlsCertFile: certFile, tlsKeyFile: keyFile, tlsDisable: true })).rejects.toThrow(
    '--tls-disable and --tls-cert-file/--tls-key-file are both set: choose one',
  );
  // On purpose (behind a TLS-terminating proxy): plain HTTP on every interface.
  const plain = await h.agent({ listen: '0.0.0.0:0', tlsDisable: true });
  expect(plain.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
});
