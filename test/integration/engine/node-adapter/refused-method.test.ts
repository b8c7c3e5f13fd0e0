// Where a refused request starts, from what Node's parser reports. The reports come from a real
// node:http server here, so this also fails loudly on a Node whose clientError no longer carries
// the read (err.rawPacket) and the offset the parser stopped at (err.bytesParsed) as
// connection-front.ts relies on.

import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { refusedRequest } from '../../../../src/engine/node-adapter/refused-method';

interface Report {
  code?: string;
  rawPacket: Buffer;
  bytesParsed: number;
}

let server: Server;
let port: number;
let reports: Report[] = [];
beforeAll(async () => {
  server = createServer((_req, res) => res.end('{}'));
  server.on('clientError', (err: NodeJS.ErrnoException & { rawPacket?: Buffer; bytesParsed?: number }, socket) => {
    reports.push({ code: err.code, rawPacket: Buffer.from(err.rawPacket ?? []), bytesParsed: err.bytesParsed ?? -1 });
    socket.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** Writes the pieces as separate reads and returns Node's report of the refusal. */
async function refusal(pieces: string[]): Promise<Report> {
  reports = [];
  const s = connect(port, '127.0.0.1');
  s.on('error', () => undefined);
  await new Promise((r) => s.once('connect', r));
  for (const p of pieces) {
    await new Promise((r) => s.write(p, r));
    // Each piece its own read: wait until Node has seen it (a refusal, or a moment).
    for (let i = 0; i < 20 && reports.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
  }
  s.destroy();
  expect(reports).toHaveLength(1);
  return reports[0];
}

const rebuilt = (r: Report) => refusedRequest(r.rawPacket, r.bytesParsed).toString('latin1');
const list = 'LIST /v1/sys/policies/acl HTTP/1.1\r\nHost: x\r\n\r\n';
const get = 'GET /v1/sys/health HTTP/1.1\r\nHost: x\r\n\r\n';

describe('refusedRequest on what Node reports', () => {
  it('LIST alone: Node stops inside the token, at the byte after the known prefix "LI"', async () => {
    const r = await refusal([list]);
    expect(r.code).toBe('HPE_INVALID_METHOD');
    expect(r.rawPacket.toString('latin1')).toBe(list);
    expect(r.bytesParsed).toBe(2);
    expect(rebuilt(r)).toBe(list);
  });

  it('LIST pipelined after a GET in the same read', async () => {
    const r = await refusal([get + list]);
    expect(r.bytesParsed).toBe(get.length + 2);
    expect(rebuilt(r)).toBe(list);
  });

  it.each([1, 2, 3, 4, 5])('LIST split after %i bytes of its token (the prefix in the previous read)', async (k) => {
    const r = await refusal([list.slice(0, k), list.slice(k)]);
    // Up to "LI" the refusal comes in the second read and the token is rebuilt; from "LIS" on it
    // comes in the first, and the rest of the token follows in the next read.
    expect(rebuilt(r)).toBe(k <= 2 ? list : list.slice(0, k));
  });

  it('LIST after a JSON body', async () => {
    const post = 'POST /v1/x HTTP/1.1\r\nContent-Length: 7\r\n\r\n{"a":1}';
    expect(rebuilt(await refusal([post + list]))).toBe(list);
  });

  it.each(['FROB', 'list', 'get', 'UNLIST', 'LISTX', 'IST'])('%s comes out as itself (answered 405, never served as LIST)', async (m) => {
    const text = `${m} /v1/sys/policies/acl HTTP/1.1\r\n\r\n`;
    expect(rebuilt(await refusal([text]))).toBe(text);
  });

  it('a JSON body followed by the token IST is not a LIST', async () => {
    const post = 'POST /v1/x HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}';
    const text = 'IST /v1/x HTTP/1.1\r\n\r\n';
    expect(rebuilt(await refusal([post + text]))).toBe(text);
  });

  it('a request line without a target keeps its token, so the framing front refuses it at once', async () => {
    expect(rebuilt(await refusal(['GET\r\n\r\n']))).toBe('GET\r\n\r\n');
  });
});
