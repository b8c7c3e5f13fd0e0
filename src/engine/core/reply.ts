// What a handler returns; the core turns it into the Vault response envelope (or 204, or a stream).

import type { Readable } from 'node:stream';
import type { LoginResult } from '../token/login-result';
import type { FileBody } from './file-body';

export type Reply =
  /** topLevel: the data fields are also copied beside the envelope, as Vault does for some sys paths. */
  | { kind: 'data'; data: unknown; status?: number; topLevel?: boolean }
  /** The envelope's data already serialized: a large answer shared by many requests is stringified once. */
  | { kind: 'dataJson'; json: string }
  | { kind: 'login'; login: LoginResult }
  /** A token the handler created itself (token store): the envelope's auth block. */
  | { kind: 'auth'; auth: unknown }
  | { kind: 'none' }
  | { kind: 'stream'; stream: Readable; contentType: string; filename?: string }
  /** A finished file, sent whole with its length (see file-body.ts). */
  | { kind: 'file'; file: FileBody; contentType: string; filename?: string }
  /** A body outside the envelope, for endpoints like sys/health that answer plain JSON with their own status. */
  | { kind: 'plain'; status: number; body: unknown };

export const reply = {
  /** 200 with the envelope; data may be null (Vault's answer for writes that return an empty response). */
  data: (data: unknown): Reply => ({ kind: 'data', data }),
  /** Like data, with the fields also at the top level (Vault's sys/auth, sys/policy, sys/capabilities-self; node-vault reads them there). */
  dataTopLevel: (data: Record<string, unknown>): Reply => ({ kind: 'data', data, topLevel: true }),
  /** 200 with the envelope around `json`, the data's JSON text (made once by the caller and reused). */
  dataJson: (json: string): Reply => ({ kind: 'dataJson', json }),
  /** 204 No Content. */
  none: (): Reply => ({ kind: 'none' }),
  login: (login: LoginResult): Reply => ({ kind: 'login', login }),
  auth: (auth: unknown): Reply => ({ kind: 'auth', auth }),
  stream: (stream: Readable, contentType: string, filename?: string): Reply => ({ kind: 'stream', stream, contentType, filename }),
  file: (file: FileBody, contentType: string, filename?: string): Reply => ({ kind: 'file', file, contentType, filename }),
  plain: (status: number, body: unknown): Reply => ({ kind: 'plain', status, body }),
};
