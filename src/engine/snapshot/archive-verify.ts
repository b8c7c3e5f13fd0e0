// Checks a raft snapshot archive as Vault's own client and restore do, before anyone relies on it
// (the snapshot agent before an upload, `keyward snapshot verify` on a stored one): a complete
// gzip stream holding a tar of meta.json, state.bin, SHA256SUMS and SHA256SUMS.sealed; SHA256SUMS
// matching meta.json and state.bin; SHA256SUMS.sealed present and non-empty (Vault's
// api/sys_raft.go RaftSnapshotWithContext: "incomplete snapshot"; it is written last, so a body that
// ended early never has it). The seal itself is not opened: that needs the server's keys.
// Streamed: memory does not grow with the archive (state.bin is hashed as it passes).
//
// Two archive formats share this shape: Vault's and OpenBao's raft snapshots (meta.json is
// hashicorp/raft's SnapshotMeta: Version, ID, Index, Term, Size) and the engine's own
// (archive-writer.ts: meta.json with format keyward-state-v1). Each is checked by its own rules:
// both announce state.bin's size in meta.json, which must match.

import { createHash } from 'node:crypto';
import { PassThrough, Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import * as tar from 'tar-stream';
import { STATE_FORMAT } from './archive-writer';

/** The checks in the order they are made; a failed one leaves the later ones unreached. */
export const ARCHIVE_CHECKS = ['gzip', 'tar', 'entries', 'meta.json', 'SHA256SUMS', 'SHA256SUMS.sealed'] as const;
export type ArchiveCheckName = (typeof ARCHIVE_CHECKS)[number];

export interface ArchiveCheck {
  check: ArchiveCheckName;
  /** undefined: not reached (an earlier check failed). */
  ok: boolean | undefined;
  detail: string;
}

export type ArchiveFormat = 'vault-raft' | typeof STATE_FORMAT;

export interface ArchiveVerdict {
  ok: boolean;
  format?: ArchiveFormat;
  /** Compressed bytes read. */
  bytes: number;
  checks: ArchiveCheck[];
  /** The first failure, as one line (an attempt's error). */
  error?: string;
}

const EXPECTED = ['meta.json', 'state.bin', 'SHA256SUMS', 'SHA256SUMS.sealed'];
/** meta.json, SHA256SUMS and SHA256SUMS.sealed are a few hundred bytes; anything huge is not an archive. */
const SMALL_LIMIT = 1024 * 1024;

class Failed extends Error {
  constructor(
    readonly check: ArchiveCheckName,
    message: string,
  ) {
    super(message);
  }
}

function parseSums(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const m = /^([0-9a-f]{64}) {2}(\S+)$/.exec(line);
    if (!m) throw new Failed('SHA256SUMS', `SHA256SUMS is malformed (line ${JSON.stringify(line.slice(0, 80))})`);
    out.set(m[2], m[1]);
  }
  return out;
}

/** The format meta.json names, with the state.bin size it announces. */
function readMeta(buf: Buffer): { format: ArchiveFormat; size: number } {
  let meta: unknown;
  try {
    meta = JSON.parse(buf.toString('utf8'));
  } catch {
    throw new Failed('meta.json', 'meta.json is not valid JSON');
  }
  const m = (meta ?? {}) as Record<string, unknown>;
  if (m.format === STATE_FORMAT && typeof m.size === 'number') return { format: STATE_FORMAT, size: m.size };
  if (typeof m.ID === 'string' && typeof m.Index === 'number' && typeof m.Size === 'number') return { format: 'vault-raft', size: m.Size };
  throw new Failed('meta.json', "meta.json is neither a raft snapshot's metadata (ID, Index, Size) nor keyward's (format keyward-state-v1)");
}

async function readSmall(entry: AsyncIterable<Buffer>, name: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  let n = 0;
  for await (const c of entry) {
    n += c.length;
    if (n > SMALL_LIMIT) throw new Failed('entries', `${name} is larger than ${SMALL_LIMIT} bytes`);
    parts.push(c);
  }
  return Buffer.concat(parts);
}

/** Reads `input` to its end (or the first failure) and says whether it is a complete archive. */
export async function verifyArchive(input: Readable): Promise<ArchiveVerdict> {
  let bytes = 0;
  input.on('data', (c: Buffer) => (bytes += c.length));
  const gunzip = createGunzip();
  const extract = tar.extract();
  const passed = new Map<ArchiveCheckName, string>();
  const small = new Map<string, Buffer>();
  const stateHash = createHash('sha256');
  let stateSize = 0;
  let format: ArchiveFormat | undefined;
  // Which layer broke: zlib's own errors (codes Z_*) are the gzip's, tar-stream's the tar's (the
  // pipeline destroys gunzip with those too).
  let gzipError: Error | undefined;
  gunzip.once('error', (e: NodeJS.ErrnoException) => {
    if (String(e.code).startsWith('Z_')) gzipError ??= e;
  });
  const flowed = pipeline(input, gunzip, extract);
  flowed.catch(() => undefined);
  try {
    const seen: string[] = [];
    try {
      for await (const entry of extract) {
        const name = entry.header.name;
        if (!EXPECTED.includes(name) || seen.includes(name)) throw new Failed('entries', `unexpected file ${JSON.stringify(name)} in the archive`);
        seen.push(name);
        if (name === 'state.bin') {
          for await (const c of entry as AsyncIterable<Buffer>) {
            stateHash.update(c);
            stateSize += c.length;
          }
        } else small.set(name, await readSmall(entry as AsyncIterable<Buffer>, name));
      }
      await flowed;
    } catch (e) {
      if (e instanceof Failed) throw e;
      await flowed.catch(() => undefined);
      if (gzipError) throw new Failed('gzip', `the gzip stream is incomplete or corrupt (${gzipError.message}): the body ended before the server finished the archive`);
      throw new Failed('tar', `the tar inside is incomplete or corrupt (${(e as Error).message})`);
    }
    passed.set('gzip', `complete (${bytes} bytes)`);
    passed.set('tar', `complete (${seen.length} entries)`);
    // SHA256SUMS.sealed is written last: a body cut between entries lacks it (Vault's check).
    const missing = EXPECTED.filter((n) => !seen.includes(n));
    if (missing.length)
      throw new Failed(
        missing.includes('SHA256SUMS.sealed') && missing.length === 1 ? 'SHA256SUMS.sealed' : 'entries',
        `incomplete snapshot: no ${missing.join(', ')} in the archive`,
      );
    passed.set('entries', EXPECTED.join(', '));
    const meta = readMeta(small.get('meta.json')!);
    format = meta.format;
    if (meta.size !== stateSize) throw new Failed('meta.json', `meta.json announces a state.bin of ${meta.size} bytes, the archive holds ${stateSize}`);
    passed.set('meta.json', `${format === STATE_FORMAT ? 'keyward engine archive' : 'Vault/OpenBao raft snapshot'}, state.bin ${stateSize} bytes as announced`);
    const sums = parseSums(small.get('SHA256SUMS')!.toString('utf8'));
    const actual: Record<string, string> = { 'meta.json': createHash('sha256').update(small.get('meta.json')!).digest('hex'), 'state.bin': stateHash.digest('hex') };
    for (const [name, hex] of Object.entries(actual)) {
      if (!sums.has(name)) throw new Failed('SHA256SUMS', `SHA256SUMS has no line for ${name}`);
      if (sums.get(name) !== hex) throw new Failed('SHA256SUMS', `the sha256 of ${name} does not match SHA256SUMS`);
    }
    passed.set('SHA256SUMS', 'matches meta.json and state.bin');
    const sealed = small.get('SHA256SUMS.sealed')!;
    if (sealed.length === 0) throw new Failed('SHA256SUMS.sealed', 'incomplete snapshot: SHA256SUMS.sealed is empty');
    passed.set('SHA256SUMS.sealed', `present (${sealed.length} bytes; opening it needs the server's keys)`);
    return { ok: true, format, bytes, checks: ARCHIVE_CHECKS.map((check) => ({ check, ok: true, detail: passed.get(check)! })) };
  } catch (e) {
    extract.destroy();
    input.resume(); // the rest is read and dropped: a tee in front keeps flowing
    const f = e instanceof Failed ? e : new Failed('gzip', (e as Error).message);
    const checks = ARCHIVE_CHECKS.map((check): ArchiveCheck => {
      if (passed.has(check)) return { check, ok: true, detail: passed.get(check)! };
      if (check === f.check) return { check, ok: false, detail: f.message };
      return { check, ok: undefined, detail: 'not reached' };
    });
    return { ok: false, format, bytes, checks, error: `the snapshot archive failed verification: ${f.message}` };
  }
}

/**
 * A pass-through that verifies the bytes flowing through it (the agent tees the managed server's
 * body into its spool and the verifier at once: the archive is read once). `verdict` settles once
 * the tee has ended or the verifier has failed; a failed verifier no longer slows the tee.
 */
export function verifyingTee(): { tee: Transform; verdict: Promise<ArchiveVerdict> } {
  const feed = new PassThrough();
  let settled = false;
  const verdict = verifyArchive(feed).finally(() => (settled = true));
  const tee = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      if (settled || feed.destroyed || feed.writableEnded) return cb(null, chunk);
      if (feed.write(chunk)) return cb(null, chunk);
      // Backpressure from the verifier: the chunk moves on once it has room or has stopped.
      let moved = false;
      const go = () => {
        if (moved) return;
        moved = true;
        feed.off('drain', go);
        feed.off('close', go);
        cb(null, chunk);
      };
      feed.on('drain', go);
      feed.on('close', go);
      void verdict.then(go);
    },
    flush(cb) {
      feed.end();
      cb();
    },
  });
  // A tee torn down early (the body broke off) ends the verifier too.
  tee.once('close', () => !feed.writableEnded && feed.destroy(new Error('the body broke off')));
  return { tee, verdict };
}
