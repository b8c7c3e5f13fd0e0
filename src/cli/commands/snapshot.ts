// `keyward snapshot verify FILE|URL|-`: the checks the snapshot agent makes before an upload
// (src/engine/snapshot/archive-verify.ts), on a stored snapshot: a file, a file:// or http(s) URL as
// `keyward status` prints it (a store that needs credentials: fetch the object with the store's
// own tool and pipe it in with `-`). One line per check; exit 0 when the archive is complete, 1
// when it is not or cannot be read.

import type { Command } from 'commander';
import type { Readable } from 'node:stream';
import type { ArchiveVerdict } from '../../engine/snapshot/archive-verify';

async function open(source: string): Promise<Readable> {
  const { createReadStream } = require('node:fs') as typeof import('node:fs');
  if (source === '-') return process.stdin;
  if (source.startsWith('file://')) return createReadStream(new URL(source));
  if (/^https?:\/\//.test(source)) {
    const { request } = require('undici') as typeof import('undici');
    const res = await request(source, { method: 'GET' });
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw new Error(
        `GET ${source} answered status ${res.statusCode} (a store that needs credentials: fetch the object with its own tool and pipe it to \`keyward snapshot verify -\`)`,
      );
    }
    return res.body;
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) throw new Error(`cannot read ${source}: give a file, a file:// or http(s):// URL, or - for stdin`);
  return createReadStream(source);
}

const LABEL = { true: 'ok  ', false: 'FAIL', undefined: '-   ' } as const;

/** The report: a line per check, then the verdict. */
export function renderVerdict(source: string, v: ArchiveVerdict): string {
  const width = Math.max(...v.checks.map((c) => c.check.length));
  const lines = v.checks.map((c) => `  ${LABEL[String(c.ok) as keyof typeof LABEL]}  ${c.check.padEnd(width)}  ${c.detail}`);
  const kind = v.format === 'vault-raft' ? 'a Vault/OpenBao raft snapshot' : v.format ? 'a keyward engine snapshot' : 'a snapshot';
  const verdict = v.ok ? `verified: ${source} is ${kind}, complete` : `NOT VERIFIED: ${source}: ${v.error}`;
  return `${lines.join('\n')}\n${verdict}\n`;
}

export function registerSnapshot(program: Command): void {
  const snapshot = program.command('snapshot').description('Work with stored raft snapshots');
  snapshot
    .command('verify')
    .argument('<source>', 'a snapshot file, a file:// or http(s):// URL (as keyward status prints it), or - for stdin')
    .description(
      "Check a stored snapshot as Vault's client and restore do: a complete gzip tar, SHA256SUMS matching meta.json and state.bin, SHA256SUMS.sealed present and non-empty",
    )
    .action(async (source: string) => {
      const { verifyArchive } = require('../../engine/snapshot/archive-verify') as typeof import('../../engine/snapshot/archive-verify');
      const input = await open(source);
      const v = await verifyArchive(input);
      process.stdout.write(renderVerdict(source, v));
      if (!v.ok) process.exitCode = 1;
    });
}
