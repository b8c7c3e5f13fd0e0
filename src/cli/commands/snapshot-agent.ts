// `keyward snapshot-agent --server URL --listen HOST:PORT --state LOCATION`: automated snapshots
// for Vault Community, OpenBao and the engine in oss edition (src/snapshot-agent).

import type { Command } from 'commander';
import { SHUTDOWN_LIMIT_MS, installRejectionLogger } from './server';

interface AgentFlags {
  server: string;
  listen: string;
  state: string;
  tokenFile?: string;
  sealKeyFile?: string;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  tlsDisable?: boolean;
  logLevel?: string;
  sealExistingConfigs?: boolean;
  allowAmbientCredentials?: boolean;
  spoolDir?: string;
  unauthenticatedMetricsAccess?: boolean;
}

export function registerSnapshotAgent(program: Command): void {
  program
    .command('snapshot-agent')
    .description('Serve sys/storage/raft/snapshot-auto for a server without it (Vault Community, OpenBao) and take its snapshots on schedule')
    .requiredOption('--server <url>', 'the managed server (its GET sys/storage/raft/snapshot)')
    .requiredOption('--listen <host:port>', 'where the agent serves the snapshot-auto API')
    .requiredOption('--state <location>', 'directory holding configs, status and leases (share it between agents)')
    .option('--token-file <file>', "the agent's token, re-read when it changes (a Vault/OpenBao Agent sink); default $VAULT_TOKEN")
    .option(
      '--seal-key-file <file>',
      'encrypts the configs (they hold store credentials) in --state: 32 bytes as hex, created (mode 0600) when missing; every agent on one state uses the same file',
    )
    .option(
      '--seal-existing-configs',
      'with --seal-key-file: seal the configs kept in clear text in --state (once, when the agent is given a key for the first time); without it they are refused',
    )
    .option(
      '--allow-ambient-credentials',
      "let store configs without keys use the agent's own cloud credentials (the SDKs' default chains, Azure managed identity); without it such configs fail",
    )
    .option('--spool-dir <dir>', 'where archives are spooled before upload (default: the OS temp directory; archives can be many GB)')
    .option(
      '--unauthenticated-metrics-access',
      "serve GET /v1/sys/metrics?format=prometheus without a token (as Vault's listener option); default: the caller needs read on sys/metrics on the managed server",
    )
    .option('--tls-cert-file <file>', 'PEM certificate (chain) to serve HTTPS with (callers send the agent their Vault tokens)')
    .option('--tls-key-file <file>', 'PEM private key of --tls-cert-file')
    .option('--tls-disable', 'serve plain HTTP beyond loopback on purpose (behind a TLS-terminating proxy); without TLS the agent listens on loopback only')
    .option('--log-level <level>', 'trace, debug, info, warn, error or off', 'info')
    .action(async (flags: AgentFlags) => {
      const { createLogger, isLogLevel } = require('../../engine/log') as typeof import('../../engine/log');
      const { startSnapshotAgent } = require('../../snapshot-agent/agent') as typeof import('../../snapshot-agent/agent');
      if (flags.logLevel && !isLogLevel(flags.logLevel)) throw new Error('--log-level must be one of trace, debug, info, warn, error, off');
      const log = createLogger((flags.logLevel as import('../../engine/log').LogLevel | undefined) ?? 'info');
      installRejectionLogger(log);
      const agent = await startSnapshotAgent({
        server: flags.server,
        listen: flags.listen,
        state: flags.state,
        tokenFile: flags.tokenFile,
        sealKeyFile: flags.sealKeyFile,
        tlsCertFile: flags.tlsCertFile,
        tlsKeyFile: flags.tlsKeyFile,
        tlsDisable: flags.tlsDisable,
        sealExistingConfigs: flags.sealExistingConfigs,
        allowAmbientCredentials: flags.allowAmbientCredentials,
        spoolDir: flags.spoolDir,
        unauthenticatedMetricsAccess: flags.unauthenticatedMetricsAccess,
        log,
      });
      process.stdout.write(
        `keyward snapshot agent listening on ${agent.url} for ${flags.server} (${agent.info.dialect} dialect, version ${agent.info.version})\nstate: ${agent.state.location} (agent id ${agent.id})\n`,
      );
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        process.stdout.write(`${signal} received, shutting down\n`);
        setTimeout(() => process.exit(1), SHUTDOWN_LIMIT_MS).unref();
        agent.close().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.on('SIGINT', () => stop('SIGINT'));
      process.on('SIGTERM', () => stop('SIGTERM'));
    });
}
