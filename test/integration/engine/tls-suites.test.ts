// The listener's TLS as Vault's listener defaults: TLS 1.2 and up, forward-secret AEAD suites only
// on TLS 1.2 (no static-RSA key exchange, no CBC with SHA-1 or SHA-256), TLS 1.3's own suites; and
// a key file others can read is a warning at start, one others can write a refusal naming it.
// Shown on the engine and on the snapshot agent, which share the adapter's listener.

import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type ConnectionOptions } from 'node:tls';
import { startEngine, type Engine } from '../../../src/engine/engine';
import { createLogger } from '../../../src/engine/log';
import { startSnapshotAgent } from '../../../src/snapshot-agent/agent';

let dir: string;
let certFile: string;
let keyFile: string;
let engine: Engine;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kw-tls-suites-'));
  certFile = join(dir, 'cert.pem');
  keyFile = join(dir, 'key.pem');
  // An RSA certificate: with an ECDSA one, static-RSA suites could not be offered at all.
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  chmodSync(keyFile, 0o600);
  engine = await startEngine({ dev: true, logLevel: 'off', listen: '127.0.0.1:0', dataDir: join(dir, 'engine'), listener: { tlsCertFile: certFile, tlsKeyFile: keyFile } });
});
afterAll(async () => {
  await engine?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The negotiated suite and version, or the handshake's error code. */
function handshake(url: string, o: ConnectionOptions): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    // The client allows everything its OpenSSL can (security level 0), so only the server decides.
    const s = connect({
      host: hostname,
      port: Number(port),
      servername: 'localhost',
      rejectUnauthorized: false,
      minVersion: 'TLSv1',
      ...o,
      ciphers: `${o.ciphers ?? 'DEFAULT'}:@SECLEVEL=0`,
    });
    s.once('secureConnect', () => {
      resolve(`${s.getProtocol()} ${s.getCipher().standardName}`);
      s.destroy();
    });
    s.once('error', (e: NodeJS.ErrnoException) => resolve(`refused ${e.code ?? e.message}`));
  });
}

const TLS12 = { maxVersion: 'TLSv1.2' as const };

describe.each([['engine'], ['snapshot agent']])('%s listener', (which) => {
  let url: string;
  let close: () => Promise<void> = async () => undefined;
  beforeAll(async () => {
    if (which === 'engine') url = engine.url;
    else {
      const agent = await startSnapshotAgent({
        server: engine.url,
        listen: '127.0.0.1:0',
        state: join(dir, 'state'),
        env: { VAULT_TOKEN: engine.rootToken!, VAULT_CACERT: certFile },
        tlsCertFile: certFile,
        tlsKeyFile: keyFile,
      });
      url = agent.url;
      close = agent.close;
    }
  });
  afterAll(() => close());

  it.each([
    ['static-RSA key exchange, CBC-SHA1', 'AES128-SHA'],
    ['static-RSA key exchange, AEAD', 'AES128-GCM-SHA256'],
    ['forward-secret, CBC-SHA1', 'ECDHE-RSA-AES128-SHA'],
    ['forward-secret, CBC-SHA256', 'ECDHE-RSA-AES128-SHA256'],
    ['forward-secret, CBC-SHA384', 'ECDHE-RSA-AES256-SHA384'],
    ['finite-field DHE, AEAD', 'DHE-RSA-AES128-GCM-SHA256'],
  ])('refuses %s on TLS 1.2 (%s)', async (_name, cipher) => {
    expect(await handshake(url, { ...TLS12, ciphers: cipher })).toMatch(/^refused /);
  });

  it('refuses TLS 1.0 and 1.1', async () => {
    expect(await handshake(url, { maxVersion: 'TLSv1.1' })).toMatch(/^refused /);
    expect(await handshake(url, { maxVersion: 'TLSv1' })).toMatch(/^refused /);
  });

  it.each([
    ['ECDHE-RSA-AES128-GCM-SHA256', 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256'],
    ['ECDHE-RSA-AES256-GCM-SHA384', 'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384'],
    ['ECDHE-RSA-CHACHA20-POLY1305', 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256'],
  ])('serves forward-secret AEAD on TLS 1.2 (%s)', async (cipher, standard) => {
    expect(await handshake(url, { ...TLS12, ciphers: cipher })).toBe(`TLSv1.2 ${standard}`);
  });

  it('serves TLS 1.3', async () => {
    expect(await handshake(url, {})).toMatch(/^TLSv1\.3 TLS_/);
  });
});

describe('the key file', () => {
  it('readable by others: a warning at start naming the file; writable by others: refused', async () => {
    const lines: string[] = [];
    const logger = createLogger('warn', (l) => lines.push(l));
    chmodSync(keyFile, 0o644);
    const e = await startEngine({ dev: true, logger, listen: '127.0.0.1:0', dataDir: join(dir, 'e2'), listener: { tlsCertFile: certFile, tlsKeyFile: keyFile } });
    await e.close();
    expect(lines.join('\n')).toMatch(/tls_key_file .*key\.pem.* readable by other users/);
    for (const mode of [0o664, 0o606]) {
      chmodSync(keyFile, mode);
      await expect(
        startEngine({ dev: true, logLevel: 'off', listen: '127.0.0.1:0', dataDir: join(dir, 'e3'), listener: { tlsCertFile: certFile, tlsKeyFile: keyFile } }),
      ).rejects.toThrow(/tls_key_file ".*key\.pem" is writable by other users/);
    }
    chmodSync(keyFile, 0o600);
    lines.length = 0;
    const ok = await startEngine({ dev: true, logger, listen: '127.0.0.1:0', dataDir: join(dir, 'e4'), listener: { tlsCertFile: certFile, tlsKeyFile: keyFile } });
    await ok.close();
    expect(lines.join('\n')).not.toMatch(/readable by other users/);
  });
});
