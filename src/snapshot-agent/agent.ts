// `keyward snapshot-agent`: automated snapshots for a server without them (Vault Community,
// OpenBao, the engine in oss edition). The engine's scheduler, targets, retention and deadlines
// run against the managed server's GET sys/storage/raft/snapshot; configs and status live in
// --state, where several agents coordinate through slot leases (leases.ts).

import { rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { translatorFor, type ServerInfo } from '../client/dialect';
import { settingsFromEnv } from '../client/options';
import { VaultClientError } from '../client/errors';
import { isLoopback, listen, parseListen, tlsMaterial, type TlsSettingNames } from '../engine/http/listener';
import { systemClock, type Clock, type TimerHandle } from '../engine/clock';
import { silentLogger, type Logger } from '../engine/log';
import { deadlinePolicyFromEnv, type DeadlinePolicy } from '../engine/snapshot/deadline';
import type { SnapshotHost } from '../engine/snapshot/host';
import { SnapshotScheduler } from '../engine/snapshot/scheduler';
import { AesSeal } from '../engine/seal/aes-seal';
import { ensureSealKey } from '../engine/seal/key-file';
import { AgentRecords } from './agent-records';
import { agentScratchDir } from './scratch';
import { refuseAmbientCredentials } from './ambient-credentials';
import { metricsEndpoint } from './metrics';
import { createAgentHttpServer } from './http-server';
import { LeaseCoordinator } from './leases';
import { ManagedServer } from './managed-server';
import { openState } from './open-state';
import type { StateStore } from './state-store';
import { TokenSource } from './token-source';

export interface SnapshotAgentOptions {
  /** The managed server's address. */
  server: string;
  /** host:port to serve on (port 0: any free port). */
  listen: string;
  /** Directory or object-store prefix holding configs, status and leases (open-state.ts). */
  state: string;
  /** A token file (re-read when it changes); else env.VAULT_TOKEN. */
  tokenFile?: string;
  /**
   * HTTPS for the agent's API (callers send it their Vault tokens), as a Vault listener: plain
   * HTTP beyond loopback is refused unless `tlsDisable`.
   */
  tlsCertFile?: string;
  tlsKeyFile?: string;
  tlsDisable?: boolean;
  /**
   * The seal key file (32 bytes, hex; created 0600 when missing) that encrypts configs (they hold
   * store credentials) in --state; agents sharing a state share it. Without one, configs are kept
   * in clear (the state directory is 0700, its files 0600) and the agent says so at start.
   */
  sealKeyFile?: string;
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  log?: Logger;
  /** How often other agents' writes are picked up from --state (default 2 s). */
  pollMs?: number;
  /** Lease length per interval (tests shorten it). */
  leaseTtlMs?: (intervalSeconds: number) => number;
  deadline?: DeadlinePolicy;
  /** How long start-up waits for a managed server that does not answer yet (default 60 s). */
  startTimeoutMs?: number;
  /**
   * With a seal key: seal every config kept in clear text in --state (an agent given a key for
   * the first time). Without it such configs are refused; an explicit step, reported loudly.
   */
  sealExistingConfigs?: boolean;
  /**
   * Store configs without keys use the agent's own cloud credentials (the SDKs' default chains,
   * Azure managed identity) only with this (ambient-credentials.ts).
   */
  allowAmbientCredentials?: boolean;
  /** Where archives are spooled before upload (default: the OS temp directory). */
  spoolDir?: string;
  /** GET sys/metrics without a token (Vault's unauthenticated_metrics_access); default: token-checked. */
  unauthenticatedMetricsAccess?: boolean;
}

export interface SnapshotAgent {
  url: string;
  info: ServerInfo;
  scheduler: SnapshotScheduler;
  tokens: TokenSource;
  state: StateStore;
  /** This agent's id in the leases it writes to --state (which agent holds a slot). */
  id: string;
  /** Archives this agent read from the managed server (attempts it took). */
  archivesRead(): number;
  close(): Promise<void>;
}

/**
 * The managed server's sys/health, waiting while it does not answer (an agent started beside a
 * server that is still coming up); any answer that is not a Vault-like health fails at once.
 */
async function waitForServer(server: ManagedServer, log: Logger, timeoutMs: number): Promise<ServerInfo> {
  const until = Date.now() + timeoutMs;
  for (let delay = 250; ; delay = Math.min(delay * 2, 5_000)) {
    try {
      return await server.info();
    } catch (e) {
      if (!VaultClientError.is(e) || e.status !== 0 || Date.now() + delay > until) throw e;
      log.warn('waiting for the managed server', { server: server.address, error: e.message });
      server.forgetInfo();
      // Wall-clock time: start-up is not part of any schedule (a test's manual clock stands still).
      await sleep(delay);
    }
  }
}

const FLAG_NAMES: TlsSettingNames = { cert: '--tls-cert-file', key: '--tls-key-file', disable: '--tls-disable', listen: '--listen' };

export async function startSnapshotAgent(o: SnapshotAgentOptions): Promise<SnapshotAgent> {
  const env = o.env ?? process.env;
  const clock = o.clock ?? systemClock;
  const log = o.log ?? silentLogger;
  parseListen(o.listen); // a bad --listen or TLS setting fails before anything starts
  const tls = tlsMaterial(o.listen, { tlsCertFile: o.tlsCertFile, tlsKeyFile: o.tlsKeyFile, tlsDisable: o.tlsDisable }, false, FLAG_NAMES);
  const state = await openState(o.state, env);
  const scratch = await agentScratchDir(o.spoolDir);
  const server = new ManagedServer({ ...settingsFromEnv({ address: o.server }, env), token: undefined }, scratch);
  const cleanups: (() => Promise<void>)[] = [() => server.close(), () => rm(scratch, { recursive: true, force: true }), () => state.close()];
  let closed: Promise<void> | undefined;
  const undo = () =>
    (closed ??= (async () => {
      for (const c of [...cleanups].reverse()) await c().catch(() => undefined);
    })());
  try {
    const info = await waitForServer(server, log, o.startTimeoutMs ?? 60_000);
    const translator = translatorFor(info.dialect);
    const tokens = new TokenSource({ file: o.tokenFile, envToken: env.VAULT_TOKEN, clock, log, server });
    await tokens.current(); // no token at all is a start-up error, not a failed attempt later
    await tokens.start();
    cleanups.push(async () => tokens.stop());
    const seal = o.sealKeyFile ? new AesSeal(ensureSealKey(o.sealKeyFile)) : undefined;
    if (!seal) log.warn('snapshot configs (with their store credentials) are kept unencrypted in --state: pass --seal-key-file to encrypt them', { state: state.location });
    const records = new AgentRecords(state, seal);
    if (o.sealExistingConfigs) {
      const sealed = await records.sealClearConfigs();
      if (sealed.length)
        log.warn('sealed config records that were kept in clear text in --state with this --seal-key-file: check that each is yours (a clear record may have been planted)', {
          state: state.location,
          configs: sealed,
        });
      else log.info('--seal-existing-configs: no config in --state was in clear text', { state: state.location });
    }
    const leases = new LeaseCoordinator(state, clock, log, { ttlMs: o.leaseTtlMs });
    let archives = 0;
    const snapshotHost: SnapshotHost = {
      clock,
      log,
      openArchive: async (_start, signal) => {
        archives++;
        return server.openSnapshot(await tokens.current(), signal);
      },
      cleanupScratch: async () => undefined, // the scratch directory is this process's own
      vetConfig: o.allowAmbientCredentials ? undefined : refuseAmbientCredentials,
      skipReason: () => server.notReady(),
      archiveStage: `reading the snapshot from ${server.address}`,
    };
    const scheduler = new SnapshotScheduler(snapshotHost, records, o.deadline ?? deadlinePolicyFromEnv(env), leases);
    await scheduler.start();
    cleanups.push(() => scheduler.stop());
    // Other agents' writes, deletes and finished attempts.
    let poll: TimerHandle | undefined;
    let polling = true;
    const pollMs = o.pollMs ?? 2_000;
    const tick = () => {
      poll = clock.setTimer(pollMs, () => {
        void scheduler
          .resync()
          .catch((e: unknown) => log.warn('reading --state failed', { error: (e as Error).message }))
          .finally(() => polling && tick());
      });
    };
    tick();
    cleanups.push(async () => {
      polling = false;
      poll?.cancel();
    });
    const metrics = metricsEndpoint({ records, scheduler, server, clock, unauthenticated: o.unauthenticatedMetricsAccess === true });
    const http: Server = createAgentHttpServer({ records, scheduler, server, translator, now: () => clock.now() }, translator, log, tls, metrics);
    const url = await listen(http, o.listen);
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          http.close(() => resolve());
          http.closeAllConnections();
        }),
    );
    log.info('snapshot agent listening', { url, server: server.address, state: state.location, dialect: info.dialect });
    // Only with --tls-disable: callers send their tokens in the clear.
    if (!tls && !isLoopback(parseListen(o.listen).host))
      log.warn("the agent serves plain HTTP beyond loopback (--tls-disable): callers' tokens cross the network unencrypted unless a TLS-terminating proxy is in front", { url });
    return { url, info, id: leases.owner, scheduler, tokens, state, archivesRead: () => archives, close: undo };
  } catch (e) {
    await undo();
    throw e;
  }
}
