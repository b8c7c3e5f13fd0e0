// The listener's TLS, with Vault's setting names (issue 32): `keyward server --config` serves HTTPS
// from tls_cert_file/tls_key_file (LIST too, which moves a connection onto the framing front), and
// a listener beyond loopback without TLS refuses to start unless tls_disable, naming the setting.

import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { connect } from 'node:net';
import { Agent, request } from 'undici';
import { generateServerCertificate } from '../../../src/terraform/plugin/auto-mtls';
import { startEngine } from '../../../src/engine/engine';
import { loadServerConfig } from '../../../src/engine/config';
import { sendAndWait } from '../../support/raw-http';

const BIN = join(__dirname, '../../../bin/keyward.js');
let dir: string;
let certFile: string;
let keyFile: string;
let sealKeyFile: string;
let agent: Agent;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kw-tls-'));
  const cert = await generateServerCertificate(); // SAN localhost
  certFile = join(dir, 'cert.pem');
  keyFile = join(dir, 'key.pem');
  sealKeyFile = join(dir, 'seal.key');
  writeFileSync(certFile, cert.certPem);
  writeFileSync(keyFile, cert.keyPem, { mode: 0o600 });
  writeFileSync(sealKeyFile, randomBytes(32).toString('hex'), { mode: 0o600 });
  agent = new Agent({ connect: { ca: cert.certPem, servername: 'localhost' } });
});
afterAll(async () => {
  await agent.close();
  rmSync(dir, { recursive: true, force: true });
});

function configFile(name: string, lines: string[]): string {
  const file = join(dir, name);
  writeFileSync(file, [`data_dir = "${join(dir, `data-${name}`)}"`, `seal_key_file = "${sealKeyFile}"`, 'log_level = "warn"', ...lines].join('\n') + '\n');
  return file;
}

function run(args: string[]): { child: ChildProcess; out: string[]; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const out: string[] = [];
  child.stderr!.on('data', (d) => out.push(String(d)));
  createInterface({ input: child.stdout! }).on('line', (l) => out.push(l));
  return { child, out, exited: new Promise((r) => child.on('exit', r)) };
}

async function listening(p: ReturnType<typeof run>): Promise<string> {
  for (let i = 0; i < 300; i++) {
    const m = /listening on (\S+)/.exec(p.out.join('\n'));
    if (m) return m[1];
    if (p.child.exitCode !== null) throw new Error(`server exited: ${p.out.join('\n')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`server did not start: ${p.out.join('\n')}`);
}

it('keyward server --config serves HTTPS with the configured certificate, LIST included', async () => {
  const p = run(['server', '--config', configFile('tls.hcl', ['listen = "127.0.0.1:0"', `tls_cert_file = "${certFile}"`, `tls_key_file = "${keyFile}"`])]);
  try {
    const url = await listening(p);
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const token = /VAULT_TOKEN='([^']+)'/.exec(p.out.join('\n'))![1];
    const put = await request(`${url}/v1/sys/policies/acl/p1`, {
      method: 'PUT',
      dispatcher: agent,
      headers: { 'x-vault-token': token },
      body: JSON.stringify({ policy: 'path "a" { capabilities = ["read"] }' }),
    });
    await put.body.text();
    expect(put.statusCode).toBe(204);
    // LIST is a method Node's parser refuses: the connection moves onto the framing front, over TLS.
    for (let i = 0; i < 2; i++) {
      const list = await request(`${url}/v1/sys/policies/acl`, { method: 'LIST' as 'GET', dispatcher: agent, headers: { 'x-vault-token': token } });
      expect(list.statusCode).toBe(200);
      expect(((await list.body.json()) as { data: { keys: string[] } }).data.keys).toContain('p1');
    }
    // Plain HTTP to the TLS port gets no answer from the engine.
    await expect(request(url.replace('https', 'http') + '/v1/sys/health').then((r) => r.body.text())).rejects.toThrow();
  } finally {
    p.child.kill('SIGTERM');
    await p.exited;
  }
});

it('a listener beyond loopback without TLS and without tls_disable refuses to start, naming the setting', async () => {
  const p = run(['server', '--config', configFile('open.hcl', ['listen = "0.0.0.0:0"'])]);
  expect(await p.exited).toBe(1);
  expect(p.out.join('\n')).toMatch(/listen "0\.0\.0\.0:0" is reachable from other machines but no TLS is configured: set tls_cert_file and tls_key_file, or tls_disable = true/);
});

it('tls_disable = true allows plain HTTP beyond loopback; half a TLS pair or both modes are refused', async () => {
  const engine = await startEngine({ dev: false, listen: '0.0.0.0:0', dataDir: join(dir, 'open-ok'), sealKeyFile, logLevel: 'off', listener: { tlsDisable: true } });
  expect(engine.url).toMatch(/^http:\/\//);
  await engine.close();
  const base = { dev: false, listen: '127.0.0.1:0', dataDir: join(dir, 'x'), sealKeyFile, logLevel: 'off' as const };
  await expect(startEngine({ ...base, listener: { tlsCertFile: certFile } })).rejects.toThrow(/tls_cert_file is set but tls_key_file is not/);
  await expect(startEngine({ ...base, listener: { tlsKeyFile: keyFile } })).rejects.toThrow(/tls_key_file is set but tls_cert_file is not/);
  await expect(startEngine({ ...base, listener: { tlsDisable: true, tlsCertFile: certFile, tlsKeyFile: keyFile } })).rejects.toThrow(/choose one/);
  await expect(startEngine({ ...base, listener: { tlsCertFile: join(dir, 'missing.pem'), tlsKeyFile: keyFile } })).rejects.toThrow(/tls_cert_file ".*missing\.pem" cannot be read/);
  // A host name is not trusted to resolve to loopback only.
  await expect(startEngine({ ...base, listen: 'example.internal:0' })).rejects.toThrow(/tls_disable/);
});

it("the config file takes Vault's listener names and timeouts, with Vault's defaults", () => {
  const c = loadServerConfig(configFile('defaults.hcl', []));
  expect(c).toMatchObject({ tls_disable: false, http_read_header_timeout: 10, http_read_timeout: 30, max_connections: 4096 });
  const set = loadServerConfig(configFile('set.hcl', ['tls_disable = true', 'http_read_header_timeout = "5s"', 'http_read_timeout = 60']));
  expect(set).toMatchObject({ tls_disable: true, http_read_header_timeout: 5, http_read_timeout: 60 });
  expect(() => loadServerConfig(configFile('bad.hcl', ['http_read_timeout = "soon"']))).toThrow(/http_read_timeout: time: invalid duration "soon"/);
});

it('a slow head or body is cut off at the read timeouts, and connections beyond the cap are closed', async () => {
  const engine = await startEngine({ dev: true, logLevel: 'off', listener: { readHeaderTimeoutMs: 300, readTimeoutMs: 800, maxConnections: 2 } });
  try {
    expect(await sendAndWait(engine.url, 'GET /v1/sys/health HTTP/1.1\r\nHost: x\r\n', 5000)).toMatch(/^HTTP\/1\.1 408/);
    const slowBody = await sendAndWait(engine.url, 'POST /v1/sys/policies/acl/x HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{', 5000);
    expect(slowBody).not.toMatch(/\(open\)$/);
    expect(slowBody).not.toMatch(/^HTTP\/1\.1 20/);
    const held = [connect(Number(new URL(engine.url).port), '127.0.0.1'), connect(Number(new URL(engine.url).port), '127.0.0.1')];
    await new Promise((r) => setTimeout(r, 100));
    expect(await sendAndWait(engine.url, 'GET /v1/sys/health HTTP/1.1\r\nHost: x\r\n\r\n', 2000)).toBe('');
    held.forEach((s) => s.destroy());
  } finally {
    await engine.close();
  }
});

it('dev mode serves plain HTTP beyond loopback, as vault server -dev, and warns about it', async () => {
  const p = run(['server', '--dev', '--listen', '0.0.0.0:0', '--log-level', 'off', '--data-dir', join(dir, 'dev-open')]);
  try {
    expect(await listening(p)).toMatch(/^http:\/\//);
    await new Promise((r) => setTimeout(r, 200));
    expect(p.out.join('\n')).toMatch(/WARNING: dev mode serves plain HTTP on 0\.0\.0\.0:0, reachable from other machines/);
  } finally {
    p.child.kill('SIGTERM');
    await p.exited;
  }
});
