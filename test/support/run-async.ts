// Runs a child process without blocking the event loop: the engine under test runs in the jest
// process, so a spawnSync of anything that talks to it (terraform, keyward) would deadlock.

import { spawn, type SpawnOptions } from 'node:child_process';

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runAsync(file: string, args: readonly string[], opts: SpawnOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
