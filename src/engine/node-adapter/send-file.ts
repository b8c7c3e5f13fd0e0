// Sends a FileBody (the manual snapshot's spooled archive, up to GBs) through one buffer, reused
// only once the socket's write callback says the previous piece left it: the kernel (or TLS) has
// then copied its bytes, so nothing reads the buffer any more when the next piece is read into it.
// fs.ReadStream made a fresh 64 KiB buffer per read instead, garbage as soon as the socket had it,
// which V8 let pile up to tens of MiB before collecting (bench/manual-snapshot.ts). One piece is
// in flight at a time: a slow client holds the sending, never memory.
// The file is closed and the body ended (its maker removes the file) however the sending ends:
// sent, failed, or the client gone mid-way ('close' before the piece's callback); a pipe from a
// read stream left both open when the client went away.

import { open, type FileHandle } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import type { FileBody } from '../core/file-body';
import type { Logger } from '../log';

/** One piece: few socket writes for a large file, little memory. */
export const PIECE_BYTES = 256 * 1024;

/**
 * Writes `piece`; resolves true once the socket has taken it, false if the response closed first
 * (the client went away) or the write failed. The buffer is not touched again after false.
 */
function written(res: ServerResponse, piece: Buffer): Promise<boolean> {
  return new Promise((resolve) => {
    const onClose = () => resolve(false);
    res.once('close', onClose);
    res.write(piece, (e) => {
      res.off('close', onClose);
      resolve(!e);
    });
  });
}

/** Sends `body` as the response's whole body (the head already written) and ends the response. */
export async function sendFile(res: ServerResponse, body: FileBody, log: Logger): Promise<void> {
  let fh: FileHandle | undefined;
  try {
    // A client gone while the answer was being made: nothing to send.
    if (res.destroyed) return;
    fh = await open(body.path, 'r');
    const buf = Buffer.allocUnsafeSlow(Math.max(1, Math.min(PIECE_BYTES, body.size)));
    let sent = 0;
    while (sent < body.size) {
      const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, body.size - sent), sent);
      // The length was announced: a file shorter than that must not end as a complete answer.
      if (bytesRead === 0) throw new Error(`the file ended after ${sent} of ${body.size} bytes`);
      if (!(await written(res, bytesRead === buf.length ? buf : buf.subarray(0, bytesRead)))) return;
      sent += bytesRead;
    }
    res.end();
  } catch (e) {
    log.error('response file failed', { error: String(e) });
    res.destroy(e as Error);
  } finally {
    await fh?.close().catch(() => undefined);
    body.end();
  }
}
