// Request bodies: read with a size limit (413 beyond it) and parsed as a JSON object, with a 400
// that names the problem and where it is.

import type { Readable } from 'node:stream';
import { ApiError, Errors } from '../../schema/errors';

export async function readBody(body: Buffer | Readable | undefined, limit: number): Promise<Buffer> {
  if (body === undefined) return Buffer.alloc(0);
  if (Buffer.isBuffer(body)) {
    if (body.length > limit) throw Errors.payloadTooLarge(limit);
    return body;
  }
  // Event listeners rather than an async iterator: this runs on every request.
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer | string) => {
      const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      size += b.length;
      if (size > limit) {
        body.off('data', onData);
        body.resume(); // discard the rest while the 413 is sent
        reject(Errors.payloadTooLarge(limit));
        return;
      }
      chunks.push(b);
    };
    body.on('data', onData);
    body.once('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    body.once('error', reject);
  });
}

/** Parses a JSON object body; empty means {}. */
export function parseJsonObject(raw: Buffer): Record<string, unknown> {
  const text = raw.toString('utf8');
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw Errors.malformedJson((e as Error).message);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const kind = Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
    throw new ApiError('malformed_json', [`failed to parse JSON input: the body must be a JSON object, got ${kind}`]);
  }
  return value as Record<string, unknown>;
}
