// Request bodies: read with a size limit (413 beyond it) and parsed as a JSON object, with a 400
// that names the problem and where it is. Unread rest is the adapter's to drain, bounded.

import type { Readable } from 'node:stream';
import { ApiError, Errors } from '../../schema/errors';
import { jsonErrorDetail } from '../json-error';

export const CLIENT_GONE = 'the client closed the connection before the request body was complete';

/**
 * Deepest JSON nesting accepted. Vault's own inputs nest a few levels; a limit keeps every later
 * step (field coercion, error messages that quote a value) clear of recursion limits.
 */
export const MAX_JSON_DEPTH = 64;

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
        body.pause();
        reject(Errors.payloadTooLarge(limit));
        return;
      }
      chunks.push(b);
    };
    body.on('data', onData);
    body.once('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    body.once('error', () => reject(Errors.badRequest(CLIENT_GONE)));
  });
}

/** The deepest array/object nesting in JSON text (brackets inside strings do not count). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) max = depth;
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return max;
}

/** Parses a JSON object body; empty means {}. */
export function parseJsonObject(raw: Buffer): Record<string, unknown> {
  const text = raw.toString('utf8');
  if (text.trim() === '') return {};
  if (jsonDepth(text) > MAX_JSON_DEPTH) {
    throw new ApiError('malformed_json', [`failed to parse JSON input: nesting deeper than ${MAX_JSON_DEPTH} levels`]);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw Errors.malformedJson(jsonErrorDetail(e as Error));
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const kind = Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
    throw new ApiError('malformed_json', [`failed to parse JSON input: the body must be a JSON object, got ${kind}`]);
  }
  return value as Record<string, unknown>;
}
