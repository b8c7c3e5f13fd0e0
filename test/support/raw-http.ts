// A raw HTTP/1.x connection for tests that need what client libraries will not do: custom methods,
// heads split across TCP writes, pipelining, bad versions, bodies cut off. Reads responses framed
// by Content-Length (or by close), each wait bounded so a hang fails the test instead of stalling.

import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export class RawConnection {
  private buf = Buffer.alloc(0);
  private closed = false;
  private wake: (() => void) | undefined;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (c: Buffer) => {
      this.buf = Buffer.concat([this.buf, c]);
      this.wake?.();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake?.();
    });
    socket.on('error', () => undefined);
  }

  static open(url: string): Promise<RawConnection> {
    const { hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      const s = connect(Number(port), hostname, () => resolve(new RawConnection(s)));
      s.once('error', reject);
    });
  }

  /** Writes one piece and waits until the kernel has taken it (so pieces arrive as separate reads). */
  write(piece: string | Buffer): Promise<void> {
    return new Promise((resolve) => this.socket.write(piece, () => resolve()));
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * The next final response (interim 1xx ones skipped); rejects after timeoutMs (a hang) or when
   * the connection closes first. `toHead`: the answer to a HEAD request, which has no body.
   */
  async response(timeoutMs = 5000, toHead = false): Promise<RawResponse> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = this.take(toHead);
      if (parsed && parsed.status >= 100 && parsed.status < 200) continue;
      if (parsed) return parsed;
      if (this.closed) throw new Error(`connection closed before a complete response (had ${JSON.stringify(this.buf.toString('latin1').slice(0, 200))})`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no response within ${timeoutMs} ms (had ${JSON.stringify(this.buf.toString('latin1').slice(0, 200))})`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  /** Resolves when the server has closed the connection (bounded). */
  async closedByServer(timeoutMs = 5000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    return this.closed;
  }

  close(): void {
    this.socket.destroy();
  }

  private take(toHead: boolean): RawResponse | undefined {
    const end = this.buf.indexOf('\r\n\r\n');
    if (end === -1) return undefined;
    const lines = this.buf.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0])?.[1]);
    const headers: Record<string, string> = {};
    for (const l of lines.slice(1)) {
      const i = l.indexOf(':');
      headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
    }
    const len = headers['content-length'];
    let total: number;
    if (toHead || status === 204 || status === 304 || (status >= 100 && status < 200)) total = end + 4;
    else if (len !== undefined) total = end + 4 + Number(len);
    else if (this.closed) total = this.buf.length;
    else return undefined;
    if (this.buf.length < total) return undefined;
    const body = this.buf.subarray(end + 4, total).toString('utf8');
    this.buf = this.buf.subarray(total);
    return { status, headers, body };
  }
}

/** A request head; extra header lines are given whole ("Name: value"). */
export function head(method: string, path: string, lines: string[] = [], version = 'HTTP/1.1'): string {
  return `${method} ${path} ${version}\r\nHost: x\r\n${lines.map((l) => l + '\r\n').join('')}\r\n`;
}

/**
 * Sends `bytes` on a fresh connection and resolves with everything the server sent once it closed
 * the connection, or that plus "(open)" after `limitMs` (for listener timeouts and caps).
 */
export function sendAndWait(url: string, bytes: string, limitMs: number): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const s = connect(Number(port), hostname, () => s.write(bytes));
    let got = '';
    const timer = setTimeout(() => {
      s.destroy();
      resolve(`${got}(open)`);
    }, limitMs);
    s.on('data', (d) => (got += String(d)));
    s.on('error', () => undefined);
    s.on('close', () => {
      clearTimeout(timer);
      resolve(got);
    });
  });
}
