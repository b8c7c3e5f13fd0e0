// The listener's settings, with Vault's names and defaults (its tcp listener): TLS from a
// certificate and key file unless tls_disable, a refusal to serve plain HTTP beyond loopback
// unless tls_disable says so, and the read timeouts Vault's server sets (10 s for the head, 30 s
// for the whole request). The connection cap is the engine's own (Vault has none).

import { readFileSync, statSync } from 'node:fs';
import { createServer, type RequestListener, type Server, type ServerOptions } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { isIP } from 'node:net';
import { Server as TlsServer } from 'node:tls';
import type { AddressInfo, Server as NetServer } from 'node:net';

export interface ListenerOptions {
  /** PEM certificate (chain) and its private key: the listener serves HTTPS. */
  tlsCertFile?: string;
  tlsKeyFile?: string;
  /** Plain HTTP on purpose, also beyond loopback (Vault's tls_disable). */
  tlsDisable?: boolean;
  /** Vault's http_read_header_timeout (default 10 s). */
  readHeaderTimeoutMs?: number;
  /** Vault's http_read_timeout: the whole request, body included (default 30 s). */
  readTimeoutMs?: number;
  /** Open connections at most; more are closed on arrival (default 4096). */
  maxConnections?: number;
}

export const DEFAULT_READ_HEADER_TIMEOUT_MS = 10_000;
export const DEFAULT_READ_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_CONNECTIONS = 4096;

/** Parses "127.0.0.1:8200", "[::1]:8200" or ":8200". */
export function parseListen(listen: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(listen.trim());
  if (!m) throw new Error(`invalid listen address ${JSON.stringify(listen)}: use host:port, e.g. 127.0.0.1:8200`);
  return { host: m[1] ?? (m[2] || '127.0.0.1'), port: Number(m[3]) };
}

/** Only addresses that cannot be reached from another machine (a name is not trusted to resolve to one). */
export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1' || /^::ffff:127\./i.test(host);
}

/**
 * The suites a TLS 1.2 handshake may use: Vault's listener defaults (Go's secure list), forward
 * secret (ECDHE) and AEAD (GCM, ChaCha20-Poly1305) only; no static-RSA key exchange, no CBC.
 * TLS 1.3's own suites are all AEAD and forward secret, and stay Node's.
 */
export const TLS12_CIPHERS = [
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

/**
 * A private key file others can read: a warning (orchestrators mount secrets 0644, and the
 * operator may mean it); others can write it: refused (anyone could swap the listener's key).
 */
function checkKeyFileMode(setting: string, file: string, warn?: (message: string) => void): void {
  let mode: number;
  try {
    mode = statSync(file).mode;
  } catch {
    return; // readPem names the file and the error
  }
  if (mode & 0o022)
    throw new Error(`${setting} ${JSON.stringify(file)} is writable by other users (mode ${(mode & 0o777).toString(8)}): make it writable by its owner only, e.g. chmod 600`);
  if (mode & 0o044)
    warn?.(
      `${setting} ${JSON.stringify(file)} is readable by other users (mode ${(mode & 0o777).toString(8)}): the listener's private key should be readable by its owner only, e.g. chmod 600`,
    );
}

function readPem(setting: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (e) {
    throw new Error(`${setting} ${JSON.stringify(file)} cannot be read: ${(e as Error).message}`);
  }
}

/** How the caller spells the settings in its errors: the config file's names, or a command's flags. */
export interface TlsSettingNames {
  cert: string;
  key: string;
  disable: string;
  listen: string;
}

const CONFIG_NAMES: TlsSettingNames = { cert: 'tls_cert_file', key: 'tls_key_file', disable: 'tls_disable = true', listen: 'listen' };

/**
 * The certificate and key to serve, or undefined for plain HTTP; refuses a half-set pair, TLS
 * settings together with tls_disable, and plain HTTP beyond loopback unless `allowPlain` (dev mode)
 * or tls_disable.
 */
export function tlsMaterial(
  listen: string,
  o: ListenerOptions,
  allowPlain: boolean,
  n: TlsSettingNames = CONFIG_NAMES,
  warn?: (message: string) => void,
): { cert: Buffer; key: Buffer } | undefined {
  const { tlsCertFile: certFile, tlsKeyFile: keyFile } = o;
  if (o.tlsDisable && (certFile || keyFile)) throw new Error(`${n.disable} and ${n.cert}/${n.key} are both set: choose one`);
  if (certFile && !keyFile) throw new Error(`${n.cert} is set but ${n.key} is not: both are needed to serve HTTPS`);
  if (keyFile && !certFile) throw new Error(`${n.key} is set but ${n.cert} is not: both are needed to serve HTTPS`);
  if (certFile && keyFile) {
    checkKeyFileMode(n.key, keyFile, warn);
    return { cert: readPem(n.cert, certFile), key: readPem(n.key, keyFile) };
  }
  const { host } = parseListen(listen);
  if (!o.tlsDisable && !allowPlain && !isLoopback(host)) {
    throw new Error(
      `${n.listen} ${JSON.stringify(listen)} is reachable from other machines but no TLS is configured: set ${n.cert} and ${n.key}, or ${n.disable} to serve plain HTTP there on purpose`,
    );
  }
  return undefined;
}

/** Listens and returns the URL clients use (https:// for a TLS listener). */
export async function listen(server: NetServer, address: string): Promise<string> {
  const { host, port } = parseListen(address);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const a = server.address() as AddressInfo;
  const h = a.family === 'IPv6' ? `[${a.address}]` : a.address;
  return `${server instanceof TlsServer ? 'https' : 'http'}://${h}:${a.port}`;
}

/** An HTTP server, or HTTPS with `tls` (the engine's and the snapshot agent's listeners). */
export function createListenerServer(options: ServerOptions, onRequest: RequestListener, tls?: { cert: Buffer; key: Buffer }): Server {
  // An https.Server is an http.Server on TLS sockets (Node's typings keep the two apart).
  return tls
    ? (createHttpsServer({ ...options, cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2', ciphers: TLS12_CIPHERS, honorCipherOrder: true }, onRequest) as unknown as Server)
    : createServer(options, onRequest);
}
