// The engine's transport-neutral request and response: the node:http adapter and in-process tests
// both speak these.

import type { Readable } from 'node:stream';
import type { FileBody } from './file-body';

export interface EngineRequest {
  method: string;
  /** Path with query, e.g. "/v1/auth/cloud/roles?list=true". */
  url: string;
  /** Lower-cased header names. */
  headers: Record<string, string | undefined>;
  body?: Buffer | Readable;
  remoteAddress: string;
}

export interface EngineResponse {
  status: number;
  headers: Record<string, string>;
  /** A string is sent as UTF-8; a FileBody's file is sent whole, with its length. */
  body?: string | Buffer | Readable | FileBody;
}

export function jsonResponse(status: number, body: unknown, extra: Record<string, string> = {}): EngineResponse {
  return {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...extra },
    // A string, not a Buffer: Node writes the head and a string body as one string in one write.
    body: JSON.stringify(body) + '\n',
  };
}
