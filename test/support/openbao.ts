// Real OpenBao for the tests: the official `bao` binary and the GCP auth plugin that
// tools/real-servers/install.sh installs (npm test's pretest runs it). Two shapes:
// - startOpenBaoDev(): `bao server -dev` (in-memory storage) with the plugin registered as `gcp`;
// - startOpenBaoCluster(): a raft cluster of N nodes on loopback (config files, sys/init, unseal, retry_join), for
//   snapshots, standbys and leader loss.
// Every server listens on 127.0.0.1 only, keeps its data in a temp directory, and is stopped by its pid.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const REAL_SERVERS_DIR = resolve(__dirname, '..', '..', 'tools', 'real-servers');

export interface PluginInfo {
  /** The catalog name it is registered under (keyward's `cloudPlugin` setting). */
  name: string;
  module: string;
  version: string;
  /** True when OpenBao's own fork could not be installed and HashiCorp's v0.19.1 stands in. */
  fallback: boolean;
  sha256: string;
}

export interface RealServerTools {
  bao: string;
  baoVersion: string;
  pluginDir: string;
  plugin: PluginInfo;
}

let tools: RealServerTools | undefined;

/** The installed tools, or an Error naming what is missing and the command that installs it. */
export function realServerTools(): RealServerTools {
  if (tools) return tools;
  const bao = join(REAL_SERVERS_DIR, 'bin', 'bao');
  const pluginJson = join(REAL_SERVERS_DIR, 'plugin.json');
  if (!existsSync(bao) || !existsSync(pluginJson)) {
    throw new Error(`real OpenBao is not installed in ${REAL_SERVERS_DIR}: run bash tools/real-servers/install.sh (npm test's pretest does)`);
  }
  const v = spawnSync(bao, ['version'], { encoding: 'utf8' });
  const baoVersion = /OpenBao v(\S+)/.exec(v.stdout ?? '')?.[1];
  if (!baoVersion) throw new Error(`${bao} version failed: ${v.stderr || v.stdout}`);
  tools = { bao, baoVersion, pluginDir: join(REAL_SERVERS_DIR, 'plugins'), plugin: JSON.parse(readFileSync(pluginJson, 'utf8')) as PluginInfo };
  return tools;
}

/** A free loopback port (the listener is closed before the server takes it: good enough on a test machine). */
export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });
}

export interface BaoResponse<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

/** One request to an OpenBao API (no redirects followed: a standby's 307 is the caller's to see). */
export async function baoRequest<T = Record<string, unknown>>(
  url: string,
  method: string,
  path: string,
  o: { token?: string; body?: unknown; namespace?: string } = {},
): Promise<BaoResponse<T>> {
  const headers: Record<string, string> = {};
  if (o.token) headers['x-vault-token'] = o.token;
  if (o.namespace) headers['x-vault-namespace'] = o.namespace;
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(`${url}/v1/${path.replace(/^\/+/, '')}`, {
    method,
    headers,
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
    redirect: 'manual',
    signal: AbortSignal.timeout(30_000),
  });
  const text = await r.text();
  let body: unknown = {};
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    body = { raw: text };
  }
  return { status: r.status, body: body as T, headers: r.headers };
}

/** Like baoRequest, but a status of 300 or more is an Error with the server's answer. */
export async function bao<T = Record<string, unknown>>(url: string, method: string, path: string, o: { token?: string; body?: unknown; namespace?: string } = {}): Promise<T> {
  const r = await baoRequest<T>(url, method, path, o);
  if (r.status >= 300) throw new Error(`${method} ${path} on ${url}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `check` returns a value (not undefined) or the deadline passes. */
async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number, log?: () => string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      throw new Error(`${what}: not ready after ${timeoutMs} ms${last ? ` (${String(last)})` : ''}${log ? `\n--- server log (tail) ---\n${log()}` : ''}`);
    }
    await sleep(100);
  }
}

const tail = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(-40).join('\n') : '(no log)');

interface Proc {
  child: ChildProcess;
  exited: Promise<void>;
}

function startBao(args: string[], logFile: string, env: Record<string, string> = {}): Proc {
  const { bao } = realServerTools();
  const log = createWriteStream(logFile, { flags: 'a' });
  // A clean environment: no VAULT_*/BAO_* of the caller's leak into the server (BAO_ADDR would point its own CLI
  // calls elsewhere), and HOME is the temp directory so nothing is written to the user's home.
  const child = spawn(bao, args, {
    env: { PATH: process.env.PATH ?? '', HOME: tmpdir(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  return { child, exited };
}

async function stopProc(p: Proc | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!p || p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill(signal);
  const t = setTimeout(() => p.child.kill('SIGKILL'), 10_000);
  await p.exited;
  clearTimeout(t);
}

/** Registers (again) the GCP plugin in a server's catalog, with environment variables for the plugin process. */
export async function registerGcpPlugin(url: string, token: string, env: string[] = []): Promise<void> {
  const { plugin } = realServerTools();
  await bao(url, 'PUT', `sys/plugins/catalog/auth/${plugin.name}`, { token, body: { sha256: plugin.sha256, command: plugin.name, env } });
}

export interface OpenBaoDev {
  url: string;
  token: string;
  /** The catalog name of the GCP plugin (keyward's cloudPlugin). */
  plugin: PluginInfo;
  dir: string;
  /** Registers the plugin again with these environment variables (a credentials file, GCE_METADATA_HOST …). */
  setPluginEnv(env: string[]): Promise<void>;
  close(): Promise<void>;
}

/** `bao server -dev` with the GCP plugin in the catalog as `gcp`. In-memory: nothing survives close(). */
export async function startOpenBaoDev(o: { token?: string; pluginEnv?: string[] } = {}): Promise<OpenBaoDev> {
  const t = realServerTools();
  const token = o.token ?? 'root-token-for-tests';
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'keyward-openbao-dev-'));
  const logFile = join(dir, 'server.log');
  const url = `http://127.0.0.1:${port}`;
  const p = startBao(['server', '-dev', `-dev-root-token-id=${token}`, `-dev-listen-address=127.0.0.1:${port}`, `-dev-plugin-dir=${t.pluginDir}`, '-dev-no-store-token'], logFile);
  const close = async () => {
    await stopProc(p);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await until(
      'bao server -dev',
      async () => {
        if (p.child.exitCode !== null) throw new Error(`exited with ${p.child.exitCode}`);
        const r = await baoRequest(url, 'GET', 'sys/health');
        return r.status === 200 ? true : undefined;
      },
      30_000,
      () => tail(logFile),
    );
    if (o.pluginEnv?.length) await registerGcpPlugin(url, token, o.pluginEnv);
  } catch (e) {
    await close();
    throw e;
  }
  return { url, token, plugin: t.plugin, dir, setPluginEnv: (env) => registerGcpPlugin(url, token, env), close };
}

export interface RaftNode {
  id: string;
  url: string;
  clusterPort: number;
  dir: string;
  logFile: string;
  running(): boolean;
  /** Starts the node's process again (same config and data). It comes back sealed. */
  start(): Promise<void>;
  /** SIGTERM (graceful) or SIGKILL (a crash). */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export interface RaftCluster {
  nodes: RaftNode[];
  rootToken: string;
  /** Base64 unseal keys (1 share, threshold 1). */
  unsealKeys: string[];
  /** The node that says it is the active node (waits for one). */
  leader(timeoutMs?: number): Promise<RaftNode>;
  /** The running nodes that are not the leader. */
  standbys(): Promise<RaftNode[]>;
  unseal(node: RaftNode, keys?: string[]): Promise<void>;
  close(): Promise<void>;
}

function nodeConfig(n: { id: string; dir: string; port: number; clusterPort: number; join: string[] }): string {
  const joins = n.join.map((u) => `  retry_join {\n    leader_api_addr = "${u}"\n  }\n`).join('');
  // Raft's timers stretched (performance_multiplier) so that elections on a busy 2-core machine do not flap.
  return `storage "raft" {
  path    = "${join(n.dir, 'raft')}"
  node_id = "${n.id}"
  performance_multiplier = 5
${joins}}
listener "tcp" {
  address         = "127.0.0.1:${n.port}"
  cluster_address = "127.0.0.1:${n.clusterPort}"
  tls_disable     = true
}
api_addr      = "http://127.0.0.1:${n.port}"
cluster_addr  = "https://127.0.0.1:${n.clusterPort}"
plugin_directory = "${realServerTools().pluginDir}"
disable_mlock = true
ui            = false
log_level     = "info"
`;
}

const healthOf = async (url: string) =>
  (await baoRequest<{ initialized?: boolean; sealed?: boolean; standby?: boolean }>(url, 'GET', 'sys/health?standbycode=200&sealedcode=200&uninitcode=200&perfstandbyok=true'))
    .body;

/**
 * A raft cluster of `size` nodes on loopback: node 1 is initialised (1 key share) and unsealed, the others join it
 * with retry_join and are unsealed with the same key; resolves when every node is a raft voter.
 */
export async function startOpenBaoCluster(o: { size?: number } = {}): Promise<RaftCluster> {
  const size = o.size ?? 3;
  const root = mkdtempSync(join(tmpdir(), 'keyward-openbao-raft-'));
  const procs = new Map<string, Proc>();
  const specs: Array<{ id: string; dir: string; port: number; clusterPort: number }> = [];
  for (let i = 1; i <= size; i++) {
    const dir = join(root, `node${i}`);
    mkdirSync(join(dir, 'raft'), { recursive: true });
    specs.push({ id: `node${i}`, dir, port: await freePort(), clusterPort: await freePort() });
  }
  const urls = specs.map((s) => `http://127.0.0.1:${s.port}`);
  const nodes: RaftNode[] = specs.map((s, i) => {
    const configFile = join(s.dir, 'config.hcl');
    writeFileSync(configFile, nodeConfig({ ...s, join: i === 0 ? [] : [urls[0]] }));
    const logFile = join(s.dir, 'server.log');
    const node: RaftNode = {
      id: s.id,
      url: urls[i],
      clusterPort: s.clusterPort,
      dir: s.dir,
      logFile,
      running: () => {
        const p = procs.get(s.id);
        return !!p && p.child.exitCode === null && p.child.signalCode === null;
      },
      async start() {
        if (node.running()) return;
        procs.set(s.id, startBao(['server', `-config=${configFile}`], logFile));
        await until(
          `${s.id} listening`,
          async () => ((await healthOf(node.url)) ? true : undefined),
          30_000,
          () => tail(logFile),
        );
      },
      stop: (signal = 'SIGTERM') => stopProc(procs.get(s.id), signal),
    };
    return node;
  });

  let rootToken = '';
  let unsealKeys: string[] = [];
  const unseal = async (node: RaftNode, keys = unsealKeys) => {
    for (const key of keys) {
      const r = await bao<{ sealed: boolean }>(node.url, 'PUT', 'sys/unseal', { body: { key } });
      if (!r.sealed) break;
    }
    await until(
      `${node.id} unsealed`,
      async () => ((await healthOf(node.url)).sealed === false ? true : undefined),
      60_000,
      () => tail(node.logFile),
    );
  };
  const leader = async (timeoutMs = 60_000) =>
    until(
      'a raft leader',
      async () => {
        for (const n of nodes.filter((x) => x.running())) {
          const l = await baoRequest<{ is_self?: boolean; ha_enabled?: boolean }>(n.url, 'GET', 'sys/leader').catch(() => undefined);
          const h = await healthOf(n.url).catch(() => undefined);
          if (l?.body.is_self && h && !h.sealed && !h.standby) return n;
        }
        return undefined;
      },
      timeoutMs,
      () => nodes.map((n) => `[${n.id}]\n${tail(n.logFile)}`).join('\n'),
    );
  const close = async () => {
    await Promise.all(nodes.map((n) => n.stop('SIGKILL')));
    rmSync(root, { recursive: true, force: true });
  };

  try {
    await nodes[0].start();
    const init = await bao<{ keys_base64: string[]; root_token: string }>(nodes[0].url, 'PUT', 'sys/init', { body: { secret_shares: 1, secret_threshold: 1 } });
    rootToken = init.root_token;
    unsealKeys = init.keys_base64;
    await unseal(nodes[0]);
    await leader();
    for (const n of nodes.slice(1)) {
      await n.start();
      // retry_join needs the node to be unsealable: with shamir the joining node is unsealed with the leader's keys.
      await until(
        `${n.id} joined`,
        async () => ((await healthOf(n.url)).initialized ? true : undefined),
        60_000,
        () => tail(n.logFile),
      ).catch(() => undefined);
      await unseal(n);
    }
    await until(
      `${size} raft voters`,
      async () => {
        const l = await leader();
        const c = await bao<{ data: { config: { servers: Array<{ node_id: string; voter: boolean }> } } }>(l.url, 'GET', 'sys/storage/raft/configuration', {
          token: rootToken,
        });
        return c.data.config.servers.filter((s) => s.voter).length === size ? true : undefined;
      },
      90_000,
      () => nodes.map((n) => `[${n.id}]\n${tail(n.logFile)}`).join('\n'),
    );
  } catch (e) {
    await close();
    throw e;
  }

  return {
    nodes,
    get rootToken() {
      return rootToken;
    },
    get unsealKeys() {
      return unsealKeys;
    },
    leader,
    async standbys() {
      const l = await leader();
      return nodes.filter((n) => n !== l && n.running());
    },
    unseal,
    close,
  };
}

/** Runs the real `bao` CLI against a server (for `bao operator raft snapshot save/restore`, `bao status` …). */
export function runBao(args: string[], o: { addr: string; token?: string; env?: Record<string, string> }): { code: number | null; stdout: string; stderr: string } {
  const { bao } = realServerTools();
  const r = spawnSync(bao, args, {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: tmpdir(), BAO_ADDR: o.addr, ...(o.token ? { BAO_TOKEN: o.token } : {}), ...o.env },
    timeout: 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
