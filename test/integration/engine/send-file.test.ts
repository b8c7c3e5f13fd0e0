// sendFile (node-adapter/send-file.ts), the manual snapshot's sender, over a real loopback socket:
// the client gets the file's exact bytes whatever its size against the reused piece buffer, also
// when it reads slowly, over plain HTTP and TLS; a client gone mid-way, a response closed before the first piece and a file
// shorter than its announced length all end the body once and leave no file descriptor open; the
// short file never reaches the client as a complete answer.

import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer, request as tlsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileBody } from '../../../src/engine/core/file-body';
import { silentLogger } from '../../../src/engine/log';
import { PIECE_BYTES, sendFile } from '../../../src/engine/node-adapter/send-file';
import { generateServerCertificate } from '../../../src/terraform/plugin/auto-mtls';

let dir: string;
let server: Server;
let url: string;
/** What the next request serves: the file, the length to announce, and how often its body ended. */
let serve: { path: string; size: number; ends: number; sent?: Promise<void>; closeFirst?: boolean };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kw-send-file-'));
  server = createServer((_req, res) => answer(res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

function answer(res: ServerResponse): void {
  const s = serve;
  res.writeHead(200, { 'content-length': String(s.size) });
  if (s.closeFirst) res.destroy();
  s.sent = sendFile(res, new FileBody(s.path, s.size, () => s.ends++), silentLogger);
}

function file(name: string, bytes: Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

function get(): Promise<IncomingMessage> {
  return new Promise((ok, fail) => {
    const req = request(url, ok);
    req.once('error', fail);
    req.end();
  });
}

/** The whole body, pausing `pauseMs` every 8 pieces read (0: as fast as it comes). */
async function body(res: IncomingMessage, pauseMs = 0): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of res as AsyncIterable<Buffer>) {
    chunks.push(c);
    if (pauseMs > 0 && ++n % 8 === 0) await new Promise((r) => setTimeout(r, pauseMs));
  }
  return Buffer.concat(chunks);
}

/** This process's open descriptors on `path`. */
const openOn = (path: string) =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false; // closed while listing
    }
  });

describe('sendFile', () => {
  it.each([0, 1, PIECE_BYTES - 1, PIECE_BYTES, PIECE_BYTES + 1, 3 * PIECE_BYTES + 17])('sends a %i-byte file exactly', async (size) => {
    const bytes = randomBytes(size);
    serve = { path: file(`f${size}`, bytes), size, ends: 0 };
    const res = await get();
    expect((await body(res)).equals(bytes)).toBe(true);
    await serve.sent;
    expect(serve.ends).toBe(1);
    expect(openOn(serve.path)).toEqual([]);
  });

  it('sends a large file exactly to a client that reads slowly', async () => {
    const bytes = randomBytes(24 * 1024 * 1024 + 5);
    serve = { path: file('slow', bytes), size: bytes.length, ends: 0 };
    const got = await body(await get(), 5);
    expect(got.length).toBe(bytes.length);
    expect(got.equals(bytes)).toBe(true);
    await serve.sent;
    expect(serve.ends).toBe(1);
  }, 60_000);

  it('sends a file exactly over TLS to a client that reads slowly', async () => {
    // TLS encrypts a piece before its write calls back: the buffer is reused only after that too.
    const cert = await generateServerCertificate();
    const tls = createTlsServer({ cert: cert.certPem, key: cert.keyPem }, (_req, res) => answer(res));
    await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
    try {
      const bytes = randomBytes(8 * 1024 * 1024 + 3);
      serve = { path: file('tls', bytes), size: bytes.length, ends: 0 };
      const res = await new Promise<IncomingMessage>((ok, fail) => {
        const req = tlsRequest(`https://127.0.0.1:${(tls.address() as AddressInfo).port}/`, { ca: cert.certPem, servername: 'localhost' }, ok);
        req.once('error', fail);
        req.end();
      });
      expect((await body(res, 5)).equals(bytes)).toBe(true);
      await serve.sent;
      expect(serve.ends).toBe(1);
    } finally {
      await new Promise((r) => tls.close(r));
    }
  }, 60_000);

  it('ends the body and closes the file when the client goes away mid-way', async () => {
    const bytes = randomBytes(32 * 1024 * 1024);
    serve = { path: file('gone', bytes), size: bytes.length, ends: 0 };
    const res = await get();
    await new Promise<void>((ok) => {
      let got = 0;
      res.on('data', (c: Buffer) => {
        got += c.length;
        if (got >= 1024 * 1024) {
          res.destroy();
          ok();
        }
      });
    });
    await serve.sent;
    expect(serve.ends).toBe(1);
    expect(openOn(serve.path)).toEqual([]);
  }, 60_000);

  it('ends the body when the response closed before the first piece', async () => {
    serve = { path: file('early', randomBytes(1000)), size: 1000, ends: 0, closeFirst: true };
    await expect(get().then((res) => body(res))).rejects.toThrow();
    await serve.sent;
    expect(serve.ends).toBe(1);
    expect(openOn(serve.path)).toEqual([]);
  });

  it('cuts the connection when the file is shorter than its announced length', async () => {
    const bytes = randomBytes(PIECE_BYTES + 100);
    serve = { path: file('short', bytes), size: bytes.length + 1, ends: 0 };
    await expect(get().then((res) => body(res))).rejects.toThrow(/aborted/);
    await serve.sent;
    expect(serve.ends).toBe(1);
    expect(openOn(serve.path)).toEqual([]);
  });
});
