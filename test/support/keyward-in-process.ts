// Runs `keyward <args>` in-process through the real commander program (one process start less per
// call): the exit code, stdout, stderr, and both interleaved as printed.

import { buildProgram } from '../../src/cli/main';

export interface KeywardRun {
  code: number;
  out: string;
  err: string;
  /** stdout and stderr in the order they were written. */
  all: string;
}

export async function runKeyward(...args: string[]): Promise<KeywardRun> {
  let out = '';
  let err = '';
  let all = '';
  const o = process.stdout.write.bind(process.stdout);
  const e = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((s: string | Uint8Array) => ((out += String(s)), (all += String(s)), true)) as typeof process.stdout.write;
  process.stderr.write = ((s: string | Uint8Array) => ((err += String(s)), (all += String(s)), true)) as typeof process.stderr.write;
  process.exitCode = 0;
  try {
    await buildProgram()
      .exitOverride()
      .parseAsync(['node', 'keyward', ...args]);
  } catch (x) {
    const line = `Error: ${(x as Error).message}\n`;
    err += line;
    all += line;
    process.exitCode = 1;
  } finally {
    process.stdout.write = o;
    process.stderr.write = e;
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = 0;
  return { code, out, err, all };
}
