// startEngine(): assembles storage, seal, registries and routes into a running server on a
// socket. Used by `keyward server`, the tests and anyone embedding the engine.

import { mkdirSync, mkdtempSync, existsSync } from 'node:fs';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:http';
import type { AuthMethodFactory, Edition, Route, SystemContext, SystemFamily, SystemFamilyFactory } from './route-family';
import { systemClock, type Clock } from './clock';
import { createLogger, type Logger, type LogLevel } from './log';
import { Core } from './core/engine-core';
import { createHttpServer } from './node-adapter/adapter';
import { listen, tlsMaterial, type ListenerOptions } from './node-adapter/listener';
import { RouteTable } from './core/router';
import { SqliteStorage } from './storage/sqlite';
import { BarrierStorage } from './storage/barrier';
import { JsonStore } from './storage/json-store';
import type { Storage } from './storage/storage';
import { AesSeal } from './seal/aes-seal';
import { ensureSealKey, readSealKey } from './seal/key-file';
import { Namespaces, ROOT_NAMESPACE } from './namespace/namespaces';
import { Mounts } from './mount/mounts';
import { PolicyStore } from './policy/policy-store';
import { TokenStore } from './token/token-store';
import { tokenRoutes } from './token/token-routes';
import { IdentityStore } from './identity/identity-store';
import { authRoutes } from './sys/auth-routes';
import { remountRoutes } from './sys/remount-routes';
import { policyRoutes } from './sys/policy-routes';
import { namespaceRoutes } from './sys/namespace-routes';
import { statusRoutes } from './sys/status-routes';
import { identityRoutes } from './sys/identity-routes';
import { PluginIdentity } from './identity/plugin-identity';
import { pluginIdentityRoutes } from './identity/plugin-identity-routes';
import { authMethodFactories } from './auth/methods';
import { systemFamilyFactories } from './sys/families';

export interface EngineOptions {
  /** host:port; default 127.0.0.1:0 (a free port). */
  listen?: string;
  /** Database directory; a new temp dir when omitted. */
  dataDir?: string;
  /** Seal key file; dev mode creates <dataDir>/seal.key (0600) when omitted. */
  sealKeyFile?: string;
  /** Default: enterprise in dev mode, oss otherwise. */
  edition?: Edition;
  /** Dev mode: a known root token (default: random, printed by the CLI). */
  rootToken?: string;
  dev?: boolean;
  logLevel?: LogLevel;
  logger?: Logger;
  clock?: Clock;
  /** Request body limit in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  clusterName?: string;
  /** Extra or replacement auth method types (default: the built-in ones). */
  authMethods?: AuthMethodFactory[];
  /** Extra or replacement system families (default: the built-in ones). */
  systemFamilies?: SystemFamilyFactory[];
  /**
   * The address others reach this engine at (Vault's api_addr): the issuer of plugin identity
   * tokens that cloud providers fetch keys from. Default: the listen URL.
   */
  apiAddr?: string;
  /**
   * The listener (Vault's names in the config file): TLS certificate and key, tls_disable, read
   * timeouts, connection cap. Outside dev mode, a listener beyond loopback needs TLS or tlsDisable.
   */
  listener?: ListenerOptions;
}

export interface Engine {
  url: string;
  /** The root token: the dev token, or a new one generated at first initialization (else undefined). */
  rootToken?: string;
  dataDir: string;
  edition: Edition;
  core: Core;
  clock: Clock;
  server: Server;
  close(): Promise<void>;
}

const ROOT_TOKEN_MARKER = 'core/root-token-initialized';

export async function startEngine(options: EngineOptions = {}): Promise<Engine> {
  const dev = options.dev ?? true;
  const clock = options.clock ?? systemClock;
  const log = options.logger ?? createLogger(options.logLevel ?? (dev ? 'warn' : 'info'));
  // Checked before anything is created: a refused listener leaves no trace.
  const tls = tlsMaterial(options.listen ?? '127.0.0.1:0', options.listener ?? {}, dev, undefined, (m) => log.warn(m));
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'keyward-'));
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const edition: Edition = options.edition ?? (dev ? 'enterprise' : 'oss');
  const sealKeyFile = options.sealKeyFile ?? join(dataDir, 'seal.key');
  if (!dev && !options.sealKeyFile) throw new Error('seal_key_file is required outside dev mode');
  const key = dev && !existsSync(sealKeyFile) ? ensureSealKey(sealKeyFile) : readSealKey(sealKeyFile);
  const seal = new AesSeal(key);
  const physical: Storage = new SqliteStorage(join(dataDir, 'keyward.db'));
  const storage = new BarrierStorage(physical, seal);
  const root = new JsonStore(storage);

  const namespaces = new Namespaces(root);
  const identity = new IdentityStore(root.sub('sys/identity/'));
  const mounts = new Mounts(
    root,
    options.authMethods ?? authMethodFactories,
    clock,
    log,
    (id) => namespaces.byId(id),
    (m) => identity.forgetMount(m.accessor),
  );
  let listenUrl = '';
  const pluginIdentity = new PluginIdentity(root, clock, () => options.apiAddr ?? listenUrl);
  mounts.services = { identityTokens: pluginIdentity };
  const policies = new PolicyStore(root);
  const tokens = new TokenStore(root.sub('sys/token/'), seal, clock, createHmac('sha256', key).update('keyward token accessor').digest());

  let families: SystemFamily[] = [];
  let systemTable = new RouteTable([]);
  const baseRoutes: Route[] = [
    ...statusRoutes({ edition, clusterName: options.clusterName ?? 'keyward', clusterId: randomUUID(), startedAt: clock.now(), clock }),
    ...authRoutes(mounts),
    ...remountRoutes(mounts, tokens),
    ...policyRoutes(policies, namespaces),
    ...namespaceRoutes(namespaces, mounts, root, pluginIdentity),
    ...identityRoutes(identity),
    ...pluginIdentityRoutes(pluginIdentity),
  ];

  const loadTables = async () => {
    // Tokens stored under plain accessors (older stores, or a restored older snapshot) move first.
    await tokens.migrateStorageLayout();
    await namespaces.load();
    const ids = [ROOT_NAMESPACE.id, ...(await root.list('sys/namespaces/')).map((p) => namespaces.get(p)?.id).filter((x): x is string => !!x)];
    await mounts.load(ids);
    policies.clearCache();
    identity.clearCache();
    pluginIdentity.clearCache();
  };

  const sys: SystemContext = {
    rawStorage: physical,
    store: root,
    seal,
    edition,
    clock,
    log,
    dataDir,
    reload: async () => {
      for (const f of families) await f.stop?.();
      await loadTables();
      for (const f of families) await f.start?.();
    },
  };
  families = (options.systemFamilies ?? systemFamilyFactories).map((f) => f(sys));
  systemTable = new RouteTable([...baseRoutes, ...families.flatMap((f) => f.routes)]);

  try {
    await loadTables();
  } catch (e) {
    // A store refused at start (duplicate namespace ids) leaves no database open behind it.
    await mounts.closeAll();
    await storage.close();
    throw e;
  }

  // Root token: dev mode uses the given or a random one; otherwise one is generated at first start.
  let rootToken: string | undefined;
  if (dev) {
    rootToken = options.rootToken ?? `hvs.${randomBytes(18).toString('base64url')}`;
    if (!(await tokens.lookup(rootToken))) {
      await tokens.create({ id: rootToken, type: 'service', policies: ['root'], path: 'auth/token/root', displayName: 'root', namespaceId: 'root', ttl: 0, orphan: true });
    }
  } else if (!(await root.get(ROOT_TOKEN_MARKER))) {
    const t = await tokens.create({ type: 'service', policies: ['root'], path: 'auth/token/root', displayName: 'root', namespaceId: 'root', ttl: 0, orphan: true });
    await root.put(ROOT_TOKEN_MARKER, { at: new Date(clock.now()).toISOString() });
    rootToken = t.id;
  }

  const core = new Core({
    clock,
    log,
    namespaces,
    mounts,
    tokens,
    policies,
    identity,
    rootStore: root,
    systemRoutes: () => systemTable,
    tokenRoutes: new RouteTable(tokenRoutes({ tokens, mounts, clock, namespacePath: (id) => namespaces.byId(id) })),
    maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
  });
  const server = createHttpServer(core, log, options.listener, tls);
  const url = await listen(server, options.listen ?? '127.0.0.1:0');
  listenUrl = url;
  for (const f of families) await f.start?.();
  log.info('engine started', { url, edition, data_dir: dataDir });

  let closed = false;
  return {
    url,
    rootToken,
    dataDir,
    edition,
    core,
    clock,
    server,
    close: async () => {
      if (closed) return;
      closed = true;
      for (const f of families) await f.stop?.();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections?.();
      });
      await mounts.closeAll();
      await storage.close();
    },
  };
}
