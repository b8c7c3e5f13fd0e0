// Test helpers: an engine on a loopback port (dev mode, temp data dir, silent logs) and a small
// request function that speaks to it over the real socket.

import { request } from 'undici';
import { startEngine, type Engine, type EngineOptions } from '../../src/engine/engine';
import type { JsonStore } from '../../src/engine/storage/json-store';
import { systemFamilyFactories } from '../../src/engine/sys/families';

export const ROOT_TOKEN = 'root-test-token';

export async function startTestEngine(options: EngineOptions = {}): Promise<Engine & { rootToken: string }> {
  const engine = await startEngine({ dev: true, rootToken: ROOT_TOKEN, logLevel: 'off', listen: '127.0.0.1:0', ...options });
  return engine as Engine & { rootToken: string };
}

/** startTestEngine, and the root view of its (decrypted) store, to look at or plant what it holds. */
export async function startTestEngineWithStore(options: EngineOptions = {}): Promise<{ engine: Engine & { rootToken: string }; store: JsonStore }> {
  let store!: JsonStore;
  const capture = (sys: { store: JsonStore }) => ((store = sys.store), { routes: [] });
  const engine = await startTestEngine({ ...options, systemFamilies: [...systemFamilyFactories, capture] });
  return { engine, store };
}

export interface ApiResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, or undefined for an empty body. */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
}

export interface ApiOptions {
  /** Defaults to the root test token; pass null to send none. */
  token?: string | null;
  body?: unknown;
  rawBody?: string | Buffer;
  namespace?: string;
  headers?: Record<string, string>;
}

export async function api(engineOrUrl: { url: string } | string, method: string, path: string, o: ApiOptions = {}): Promise<ApiResult> {
  const base = typeof engineOrUrl === 'string' ? engineOrUrl : engineOrUrl.url;
  const headers: Record<string, string> = { ...o.headers };
  const token = o.token === undefined ? ROOT_TOKEN : o.token;
  if (token) headers['x-vault-token'] = token;
  if (o.namespace) headers['x-vault-namespace'] = o.namespace;
  let body: string | Buffer | undefined;
  if (o.rawBody !== undefined) body = o.rawBody;
  else if (o.body !== undefined) {
    body = JSON.stringify(o.body);
    headers['content-type'] = 'application/json';
  }
  const res = await request(`${base}/v1/${path.replace(/^\/+/, '')}`, { method: method as 'GET', headers, body });
  const text = await res.body.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.statusCode, headers: res.headers, body: parsed, text };
}
