// An engine in its own process (`keyward server --dev`), for benchmarks that must not share an
// event loop with their load generator, and for tests that kill it.

import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export interface EngineProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  stop(): void;
}

/**
 * `checkout`: the root of another keyward checkout to run instead of this one (A/B benches).
 * `entry`: the script to run instead of the checkout's bin/keyward.js (a compiled build, see bench/engine-build.ts).
 */
export async function startEngineProcess(o: {
  dataDir: string;
  rootToken: string;
  listen?: string;
  nodeArgs?: string[];
  logLevel?: string;
  checkout?: string;
  entry?: string;
  /** Extra environment (e.g. KEYWARD_SNAPSHOT_ATTEMPT_FLOOR_MS). */
  env?: Record<string, string>;
  /** The Node binary to run it on (default: this process's). */
  node?: string;
}): Promise<EngineProcess> {
  const bin = o.entry ?? join(o.checkout ?? join(__dirname, '..', '..'), 'bin', 'keyward.js');
  const args = ['server', '--dev', '--listen', o.listen ?? '127.0.0.1:0', '--root-token', o.rootToken, '--data-dir', o.dataDir, '--log-level', o.logLevel ?? 'error'];
  const child = spawn(o.node ?? process.execPath, [...(o.nodeArgs ?? []), bin, ...args], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...o.env } });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const onExit = (code: number | null) => reject(new Error(`engine exited with ${code}: ${out}`));
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        child.off('exit', onExit);
        resolve(m[1]);
      }
    });
    child.once('exit', onExit);
  });
  child.stdout!.resume();
  return { url, pid: child.pid!, child, stop: () => void child.kill('SIGTERM') };
}
