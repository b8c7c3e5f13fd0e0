// A small GCS JSON-API emulator on node:http, faithful to what @google-cloud/storage sends:
// buckets, multipart/media/resumable uploads (308 + Range, X-Goog-Hash md5 check), list with
// prefix/delimiter/pagination, get (metadata or alt=media, Range), delete, and the create-only
// precondition (ifGenerationMatch=0 on uploads: 412 when the object exists). No auth is enforced.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { EmulatorError, GcsStore, type ObjectRecord } from './store';
import { readAll } from '../read-all';

export interface GcsEmulator {
  /** Base URL to pass as apiEndpoint / cloudtwo_endpoint, e.g. http://127.0.0.1:PORT */
  url: string;
  store: GcsStore;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function resource(base: string, o: ObjectRecord) {
  const enc = encodeURIComponent(o.name);
  return {
    kind: 'storage#object',
    id: `${o.bucket}/${o.name}/${o.generation}`,
    selfLink: `${base}/storage/v1/b/${o.bucket}/o/${enc}`,
    mediaLink: `${base}/download/storage/v1/b/${o.bucket}/o/${enc}?generation=${o.generation}&alt=media`,
    name: o.name,
    bucket: o.bucket,
    generation: o.generation,
    metageneration: '1',
    contentType: o.contentType,
    storageClass: 'STANDARD',
    size: String(o.size),
    md5Hash: o.md5Hash,
    crc32c: o.crc32c,
    etag: Buffer.from(o.generation).toString('base64'),
    timeCreated: o.created,
    updated: o.created,
  };
}

/** Splits a multipart/related body into [metadata JSON, media bytes, media content type]. */
function parseMultipart(body: Buffer, contentType: string): { meta: Record<string, unknown>; media: Buffer; mediaType: string } {
  const m = /boundary="?([^";]+)"?/i.exec(contentType);
  if (!m) throw new EmulatorError(400, 'multipart upload without a boundary');
  const delim = Buffer.from(`--${m[1]}`);
  const parts: Buffer[] = [];
  let at = body.indexOf(delim);
  while (at !== -1) {
    const start = at + delim.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(delim, start);
    if (next === -1) break;
    parts.push(body.subarray(start + 2, next - 2)); // drop the CRLF after the delimiter and before the next
    at = next;
  }
  if (parts.length !== 2) throw new EmulatorError(400, `multipart upload must have 2 parts, got ${parts.length}`);
  const split = (p: Buffer) => {
    const i = p.indexOf('\r\n\r\n');
    return { headers: p.subarray(0, i).toString(), data: p.subarray(i + 4) };
  };
  const metaPart = split(parts[0]);
  const mediaPart = split(parts[1]);
  const mediaType = /content-type:\s*([^\r\n]+)/i.exec(mediaPart.headers)?.[1] ?? 'application/octet-stream';
  return { meta: JSON.parse(metaPart.data.toString('utf8') || '{}') as Record<string, unknown>, media: mediaPart.data, mediaType };
}

function md5FromHashHeader(h: string | string[] | undefined): string | undefined {
  const v = Array.isArray(h) ? h.join(',') : h;
  return v ? /md5=([^,]+)/.exec(v)?.[1] : undefined;
}

export async function startGcsEmulator(opts: { dir: string; host?: string; port?: number }): Promise<GcsEmulator> {
  const store = new GcsStore(opts.dir);
  await store.init();
  let base = '';

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', base);
    const seg = url.pathname.split('/').slice(1).map(decodeURIComponent);
    const q = url.searchParams;
    const method = req.method ?? 'GET';
    const api = seg[0] === 'storage' && seg[1] === 'v1';
    const upload = seg[0] === 'upload' && seg[1] === 'storage' && seg[2] === 'v1';
    const download = seg[0] === 'download' && seg[1] === 'storage' && seg[2] === 'v1';

    if (api && seg[2] === 'b' && seg.length === 3) {
      if (method === 'POST') {
        const body = JSON.parse((await readAll(req)).toString('utf8') || '{}') as { name?: string };
        const b = store.createBucket(String(body.name));
        return send(res, 200, { kind: 'storage#bucket', id: b.name, name: b.name, timeCreated: b.created });
      }
      return send(res, 200, { kind: 'storage#buckets', items: [...store.buckets.values()].map((b) => ({ kind: 'storage#bucket', id: b.name, name: b.name })) });
    }
    if (api && seg[2] === 'b' && seg.length === 4) {
      const b = store.bucket(seg[3]);
      if (method === 'DELETE') {
        if (b.objects.size > 0) throw new EmulatorError(409, 'The bucket you tried to delete is not empty.', 'conflict');
        store.buckets.delete(b.name);
        return send(res, 204);
      }
      return send(res, 200, { kind: 'storage#bucket', id: b.name, name: b.name, timeCreated: b.created });
    }
    if (api && seg[2] === 'b' && seg[4] === 'o' && seg.length === 5 && method === 'GET') {
      const { items, prefixes } = store.list(seg[3], q.get('prefix') ?? '', q.get('delimiter') ?? '');
      const max = Math.min(Number(q.get('maxResults') ?? 1000) || 1000, 1000);
      const after = q.get('pageToken') ? Buffer.from(q.get('pageToken')!, 'base64url').toString('utf8') : '';
      const page = items.filter((o) => o.name > after).slice(0, max);
      const more = items.filter((o) => o.name > after).length > page.length;
      return send(res, 200, {
        kind: 'storage#objects',
        items: page.map((o) => resource(base, o)),
        prefixes: after ? [] : prefixes,
        ...(more ? { nextPageToken: Buffer.from(page[page.length - 1].name).toString('base64url') } : {}),
      });
    }
    if ((api && seg[2] === 'b' && seg[4] === 'o' && seg.length === 6) || (download && seg[3] === 'b' && seg[5] === 'o' && seg.length === 7)) {
      const [bucket, name] = api ? [seg[3], seg[5]] : [seg[4], seg[6]];
      if (method === 'DELETE') {
        await store.deleteObject(bucket, name);
        return send(res, 204);
      }
      const o = store.object(bucket, name);
      if (download || q.get('alt') === 'media') {
        const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
        const start = range && range[1] ? Number(range[1]) : 0;
        const end = range && range[2] ? Math.min(Number(range[2]), o.size - 1) : o.size - 1;
        res.writeHead(range ? 206 : 200, {
          'content-type': o.contentType,
          'content-length': String(Math.max(0, end - start + 1)),
          'x-goog-hash': `crc32c=${o.crc32c},md5=${o.md5Hash}`,
          'x-goog-generation': o.generation,
          'x-goog-stored-content-length': String(o.size),
        });
        if (o.size === 0) return void res.end();
        await pipeline(store.read(o, start, end), res);
        return;
      }
      return send(res, 200, resource(base, o));
    }
    if (upload && seg[3] === 'b' && seg[5] === 'o' && seg.length === 6) {
      store.activeUploads++;
      store.maxActiveUploads = Math.max(store.maxActiveUploads, store.activeUploads);
      try {
        await store.uploadGate;
        return await handleUpload(req, res, seg, q, method);
      } finally {
        store.activeUploads--;
      }
    }
    throw new EmulatorError(404, `Not Found: ${method} ${url.pathname}`, 'notFound');
  }

  async function handleUpload(req: IncomingMessage, res: ServerResponse, seg: string[], q: URLSearchParams, method: string): Promise<void> {
    const bucket = seg[4];
    const type = q.get('uploadType');
    if (method === 'POST' && type === 'resumable') {
      const meta = JSON.parse((await readAll(req)).toString('utf8') || '{}') as { name?: string; contentType?: string };
      const name = q.get('name') ?? meta.name;
      if (!name) throw new EmulatorError(400, 'Required parameter: name');
      const s = store.openSession(bucket, name, String(req.headers['x-upload-content-type'] ?? meta.contentType ?? 'application/octet-stream'));
      return send(res, 200, undefined, { location: `${base}/upload/storage/v1/b/${bucket}/o?uploadType=resumable&upload_id=${s.id}` });
    }
    if (method === 'POST' && (type === 'multipart' || type === 'media')) {
      const body = await readAll(req);
      const parsed =
        type === 'multipart'
          ? parseMultipart(body, String(req.headers['content-type'] ?? ''))
          : { meta: {}, media: body, mediaType: String(req.headers['content-type'] ?? 'application/octet-stream') };
      const name = q.get('name') ?? (parsed.meta.name as string | undefined);
      if (!name) throw new EmulatorError(400, 'Required parameter: name');
      const s = store.openSession(bucket, name, String(parsed.meta.contentType ?? parsed.mediaType));
      await store.append(s, Readable.from([parsed.media]), 0);
      store.sessions.delete(s.id);
      return send(res, 200, resource(base, await store.finalize(s, md5FromHashHeader(req.headers['x-goog-hash']), q.get('ifGenerationMatch'))));
    }
    const s = store.sessions.get(q.get('upload_id') ?? '');
    if (!s) throw new EmulatorError(404, 'No such upload session', 'notFound');
    if (method === 'DELETE') {
      store.sessions.delete(s.id);
      return send(res, 499);
    }
    if (method === 'PUT') return putChunk(req, res, s);
    throw new EmulatorError(405, `unsupported upload request ${method}`, 'invalid');
  }

  async function putChunk(req: IncomingMessage, res: ServerResponse, s: import('./store').UploadSession): Promise<void> {
    if (s.done) {
      await readAll(req);
      return send(res, 200, resource(base, s.done));
    }
    const cr = /^bytes (\*|(\d+)-(\d+|\*))\/(\d+|\*)$/.exec(String(req.headers['content-range'] ?? 'bytes */*'));
    if (!cr) throw new EmulatorError(400, `invalid Content-Range ${String(req.headers['content-range'])}`);
    const total = cr[4] === '*' ? undefined : Number(cr[4]);
    const incomplete = () => send(res, 308, undefined, s.received > 0 ? { range: `bytes=0-${s.received - 1}` } : {});
    if (cr[1] === '*') {
      await readAll(req);
      if (total !== undefined && total === s.received) return send(res, 200, resource(base, await store.finalize(s)));
      return incomplete();
    }
    const first = Number(cr[2]);
    if (first > s.received) throw new EmulatorError(400, `upload offset ${first} is beyond the ${s.received} bytes received`);
    const complete = await store.append(s, req, s.received - first);
    if (!complete) return; // client went away: the session keeps what arrived, no object exists
    const lastKnown = cr[3] === '*';
    if ((total !== undefined && s.received === total) || (lastKnown && total === undefined)) {
      const rec = await store.finalize(s, md5FromHashHeader(req.headers['x-goog-hash']));
      return send(res, 200, resource(base, rec));
    }
    if (total !== undefined && s.received > total) throw new EmulatorError(400, `received ${s.received} bytes, more than the declared ${total}`);
    return incomplete();
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      const status = e instanceof EmulatorError ? e.status : 500;
      const message = e instanceof Error ? e.message : String(e);
      const reason = e instanceof EmulatorError ? e.reason : 'backendError';
      if (!res.headersSent) send(res, status, { error: { code: status, message, errors: [{ message, domain: 'global', reason }] } });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    store,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
