// A loopback front for a real server that passes everything through but can spoil the answer to
// GET sys/storage/raft/snapshot in the two ways a real server fails a backup while saying 200:
// - 'cut': the body ends cleanly after a third of the real archive (a server that fails mid-stream: Go
//   ends the chunked body normally once the handler returns, so the client sees no transport error);
// - 'unsealed': the real archive re-tarred and re-gzipped without SHA256SUMS.sealed (written last by
//   the server, so it is what a short archive lacks).
// Both start from the real server's real archive, so every other byte is what the server sent.

import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { gunzipSync, gzipSync } from 'node:zlib';
import { forwardingFront, type ForwardingFront } from './forwarding-front';

export type SnapshotSpoil = 'none' | 'cut' | 'unsealed';

export interface SpoilingFront extends ForwardingFront {
  /** What the next snapshot reads get (default 'none'). */
  mode: SnapshotSpoil;
  /** Snapshot reads answered with a spoiled archive. */
  readonly spoiled: number;
}

/** The whole answer of `GET path` on `target`, with the caller's headers. */
function fetchUpstream(target: string, req: IncomingMessage): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> {
  const t = new URL(target);
  return new Promise((resolve, reject) => {
    const up = httpRequest({ host: t.hostname, port: t.port, method: 'GET', path: req.url, headers: { ...req.headers, host: t.host } }, (r) => {
      const parts: Buffer[] = [];
      r.on('data', (c: Buffer) => parts.push(c));
      r.on('end', () => resolve({ status: r.statusCode ?? 502, headers: r.headers, body: Buffer.concat(parts) }));
      r.on('error', reject);
    });
    up.on('error', reject);
    up.end();
  });
}

/** The archive without its SHA256SUMS.sealed entry, every other entry byte for byte. */
export async function withoutSealedSums(archive: Buffer): Promise<Buffer> {
  const tar = await import('tar-stream');
  const extract = tar.extract();
  const pack = tar.pack();
  const out: Buffer[] = [];
  pack.on('data', (c: unknown) => out.push(c as Buffer));
  const packed = new Promise<void>((r) => pack.on('end', () => r()));
  const copied = (async () => {
    for await (const e of extract) {
      const parts: Buffer[] = [];
      for await (const c of e as AsyncIterable<Buffer>) parts.push(c);
      if (e.header.name === 'SHA256SUMS.sealed') continue;
      pack.entry({ ...e.header, size: undefined }, Buffer.concat(parts));
    }
    pack.finalize();
  })();
  extract.end(gunzipSync(archive));
  await copied;
  await packed;
  return gzipSync(Buffer.concat(out));
}

export async function spoilingFront(target: string): Promise<SpoilingFront> {
  const state = { mode: 'none' as SnapshotSpoil, spoiled: 0 };
  const intercept = (req: IncomingMessage, res: ServerResponse): boolean => {
    if (req.method !== 'GET' || !/^\/v1\/sys\/storage\/raft\/snapshot(\?|$)/.test(req.url ?? '') || state.mode === 'none') return false;
    const mode = state.mode;
    void (async () => {
      const up = await fetchUpstream(target, req);
      if (up.status !== 200) {
        res.writeHead(up.status, { 'content-type': String(up.headers['content-type'] ?? 'application/json') });
        res.end(up.body);
        return;
      }
      state.spoiled++;
      // As the server does: 200 and the gzip type at once, no length (chunked), then the body.
      res.writeHead(200, { 'content-type': 'application/gzip' });
      if (mode === 'cut') {
        res.write(up.body.subarray(0, Math.floor(up.body.length / 3)));
        res.end();
      } else {
        res.end(await withoutSealedSums(up.body));
      }
    })().catch(() => res.destroy());
    return true;
  };
  const front = await forwardingFront(target, intercept);
  return {
    url: front.url,
    close: () => front.close(),
    get mode() {
      return state.mode;
    },
    set mode(m: SnapshotSpoil) {
      state.mode = m;
    },
    get spoiled() {
      return state.spoiled;
    },
  };
}
