// The engine's transport-neutral request and response: the node:http adapter and in-process tests
// both speak these.

import type { Readable } from 'node:stream';

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
  body?: Buffer | Readable;
}

export function jsonResponse(status: number, body: unknown, extra: Record<string, string> = {}): EngineResponse {
  return {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...extra },
    body: Buffer.from(JSON.stringify(body) + '\n', 'utf8'),
  };
}
