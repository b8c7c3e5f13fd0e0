// Restores raft snapshots, one after another, into a fresh OpenBao cluster with the real CLI
// (`bao operator raft snapshot restore -force`), and reads back a kv value to show the restore took.
// A snapshot of another cluster carries that cluster's keyring: the node seals itself after the
// restore and opens only with the source's unseal keys, and from then on the source's tokens are the
// ones it knows.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bao, baoRequest, runBao, type RaftCluster } from './openbao';

export interface RestoreTarget {
  /**
   * Restores `archive` (bytes of a snapshot of `source`), unseals with the source's keys and resolves with the
   * value of kv `path` once it reads back `expected`; before the restore it overwrites that value on the
   * target, so the expected value can only come from the archive.
   */
  restore(archive: Buffer, path: string, expected: string): Promise<void>;
  close(): void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function restoreTarget(fresh: RaftCluster, source: RaftCluster): RestoreTarget {
  const dir = mkdtempSync(join(tmpdir(), 'keyward-restore-'));
  let token = fresh.rootToken;
  let n = 0;
  return {
    async restore(archive, path, expected) {
      // A node that sealed itself late after the previous restore opens with the keys of the data it holds.
      for (const x of fresh.nodes) {
        const seal = await baoRequest<{ sealed?: boolean }>(x.url, 'GET', 'sys/seal-status').catch(() => undefined);
        if (seal?.body.sealed) await fresh.unseal(x, token === source.rootToken ? source.unsealKeys : fresh.unsealKeys);
      }
      const node = await fresh.leader();
      if (token === source.rootToken) {
        // Already holds the source's data: scribble over the value so that only the archive brings it back.
        await bao(node.url, 'POST', path, { token, body: { value: 'overwritten-before-restore' } });
      }
      const file = join(dir, `restore-${++n}.snap`);
      writeFileSync(file, archive);
      const r = runBao(['operator', 'raft', 'snapshot', 'restore', '-force', file], { addr: node.url, token });
      if (r.code !== 0) throw new Error(`bao operator raft snapshot restore -force failed (${r.code}): ${r.stderr}${r.stdout}`);
      token = source.rootToken;
      // The node seals itself a moment after the restore answers when the keyring changed; either way the
      // value is read with the source's token until it is the archive's.
      const deadline = Date.now() + 60_000;
      let last = '';
      for (;;) {
        const seal = await baoRequest<{ sealed?: boolean }>(node.url, 'GET', 'sys/seal-status').catch(() => undefined);
        if (seal?.body.sealed) await fresh.unseal(node, source.unsealKeys);
        const got = await baoRequest<{ data?: { value?: string } }>(node.url, 'GET', path, { token }).catch((e: Error) => ({ status: 0, body: { error: e.message } }));
        if (got.status === 200 && (got.body as { data?: { value?: string } }).data?.value === expected) return;
        last = `${got.status} ${JSON.stringify(got.body)}`;
        if (Date.now() > deadline) throw new Error(`after restore ${n}, ${path} did not read back ${JSON.stringify(expected)}: last ${last}`);
        await sleep(200);
      }
    },
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}
