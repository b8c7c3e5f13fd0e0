// `keyward server`: the embedded engine, in dev mode (like `vault server -dev`) or from a config file.

import type { Command } from 'commander';
import { rmSync } from 'node:fs';
import type { EngineOptions } from '../../engine/engine';
import type { Logger } from '../../engine/log';

interface ServerFlags {
  dev?: boolean;
  config?: string;
  listen?: string;
  rootToken?: string;
  dataDir?: string;
  edition?: string;
  logLevel?: string;
}

// The engine loads only when the server starts (not for --help).
function optionsFrom(flags: ServerFlags): EngineOptions {
  const { loadServerConfig } = require('../../engine/config') as typeof import('../../engine/config');
  const { isLogLevel } = require('../../engine/log') as typeof import('../../engine/log');
  if (flags.dev) {
    if (flags.edition && !['oss', 'enterprise', 'plus'].includes(flags.edition)) throw new Error(`--edition must be oss, enterprise or plus`);
    if (flags.logLevel && !isLogLevel(flags.logLevel)) throw new Error(`--log-level must be one of trace, debug, info, warn, error, off`);
    return {
      dev: true,
      listen: flags.listen ?? '127.0.0.1:8200',
      rootToken: flags.rootToken,
      dataDir: flags.dataDir,
      edition: (flags.edition as EngineOptions['edition']) ?? 'enterprise',
      logLevel: (flags.logLevel as EngineOptions['logLevel']) ?? 'info',
    };
  }
  if (!flags.config) throw new Error('keyward server needs --dev or --config FILE');
  const { namedFileError } = require('../../client/named-file') as typeof import('../../client/named-file');
  const { accessSync, constants } = require('node:fs') as typeof import('node:fs');
  // Each file the server reads, checked before it starts: the error names the setting and where it
  // was set (the engine's own open would say only ENOENT and the path).
  const readable = (file: string, from: string) => {
    try {
      accessSync(file, constants.R_OK);
    } catch (e) {
      throw namedFileError(from, file, e);
    }
  };
  readable(flags.config, '--config');
  const c = loadServerConfig(flags.config);
  if (c.seal_key_file) readable(c.seal_key_file, `seal_key_file (in --config ${flags.config})`);
  if (!c.tls_disable)
    for (const [k, f] of [
      ['tls_cert_file', c.tls_cert_file],
      ['tls_key_file', c.tls_key_file],
    ] as const)
      if (f) readable(f, `${k} (in --config ${flags.config})`);
  return {
    dev: false,
    listen: flags.listen ?? c.listen,
    dataDir: c.data_dir,
    sealKeyFile: c.seal_key_file,
    edition: c.edition,
    logLevel: c.log_level,
    maxBodyBytes: c.max_request_bytes,
    clusterName: c.cluster_name,
    listener: {
      tlsCertFile: c.tls_cert_file,
      tlsKeyFile: c.tls_key_file,
      tlsDisable: c.tls_disable,
      readHeaderTimeoutMs: c.http_read_header_timeout * 1000,
      readTimeoutMs: c.http_read_timeout * 1000,
      maxConnections: c.max_connections,
    },
  };
}

/** Shutdown never hangs: past this, the process exits anyway (status 1, said on stderr). */
export const SHUTDOWN_LIMIT_MS = 10_000;

/**
 * A rejected promise nobody handled is logged, never a silent crash of the whole engine (Node's
 * default): one failing background task must not take every other part down with it.
 */
export function installRejectionLogger(log: Logger): void {
  process.on('unhandledRejection', (reason) => {
    log.error('unhandled rejection', { error: reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason) });
  });
}

export function registerServer(program: Command): void {
  program
    .command('server')
    .description('Run the embedded Vault-compatible engine')
    .option('--dev', 'development mode: enterprise edition, temp data dir, known root token')
    .option('--config <file>', 'config file (listen, data_dir, seal_key_file, edition, log_level, tls_cert_file, tls_key_file, tls_disable, ...; see docs/engine.md)')
    .option('--listen <addr>', 'listen address host:port (dev default 127.0.0.1:8200)')
    .option('--root-token <token>', 'dev mode: use this root token')
    .option('--data-dir <dir>', 'dev mode: keep data in this directory instead of a temp dir')
    .option('--edition <edition>', 'dev mode: oss, enterprise or plus (default enterprise)')
    .option('--log-level <level>', 'trace, debug, info, warn, error or off')
    .action(async (flags: ServerFlags) => {
      const { startEngine } = require('../../engine/engine') as typeof import('../../engine/engine');
      const { createLogger } = require('../../engine/log') as typeof import('../../engine/log');
      const options = optionsFrom(flags);
      installRejectionLogger(createLogger(options.logLevel ?? 'info'));
      const engine = await startEngine(options);
      // Like `vault server -dev`, a dev server without --data-dir keeps nothing (seal.key included).
      const temporary = flags.dev === true && flags.dataDir === undefined;
      const lines = [
        `keyward engine listening on ${engine.url} (edition: ${engine.edition}${flags.dev ? ', dev mode' : ''})`,
        `data directory: ${engine.dataDir}${temporary ? ' (removed on exit; --data-dir keeps one)' : ''}`,
        '',
        `    export VAULT_ADDR='${engine.url}'`,
      ];
      if (engine.rootToken) {
        lines.push(`    export VAULT_TOKEN='${engine.rootToken}'`);
        if (!flags.dev) lines.push('', 'This root token is shown once, at first initialization. Store it safely.');
      }
      // Dev mode serves plain HTTP anywhere, as `vault server -dev` does; say so when that is beyond loopback.
      const { isLoopback, parseListen } = require('../../engine/node-adapter/listener') as typeof import('../../engine/node-adapter/listener');
      if (flags.dev && !isLoopback(parseListen(options.listen ?? '127.0.0.1:8200').host)) {
        lines.push(
          '',
          `WARNING: dev mode serves plain HTTP on ${options.listen}, reachable from other machines; do not expose it (use --config with tls_cert_file and tls_key_file)`,
        );
      }
      process.stdout.write(lines.join('\n') + '\n');
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        process.stdout.write(`${signal} received, shutting down\n`);
        setTimeout(() => {
          process.stderr.write(`shutdown did not finish within ${SHUTDOWN_LIMIT_MS / 1000} s; exiting\n`);
          process.exit(1);
        }, SHUTDOWN_LIMIT_MS).unref();
        engine.close().then(
          () => {
            if (temporary) rmSync(engine.dataDir, { recursive: true, force: true });
            process.exit(0);
          },
          (e) => {
            process.stderr.write(`shutdown failed: ${String(e)}\n`);
            process.exit(1);
          },
        );
      };
      process.on('SIGINT', () => stop('SIGINT'));
      process.on('SIGTERM', () => stop('SIGTERM'));
    });
}
