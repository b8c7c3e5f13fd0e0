// The two servers a parity suite talks to, behind one request function that takes Vault's names:
// real OpenBao (answers as it is) and the embedded engine (the request translated to keyward's
// names with the suite's own rename table, the answer translated back).

import { baoRequest } from '../../support/openbao';
import { pathToKeyward, toKeyward, toVault } from './rename';

export interface Answer {
  status: number;
  body: unknown;
}

export interface Target {
  name: 'openbao' | 'engine';
  url: string;
  rootToken: string;
  request(method: string, path: string, o?: { token?: string | null; body?: unknown; namespace?: string }): Promise<Answer>;
}

/** How a target spells a request and its answer, given and compared in Vault's names. */
interface Names {
  path(path: string): string;
  body(body: unknown): unknown;
  answer(body: unknown): unknown;
}
const AS_IS: Names = { path: (x) => x, body: (x) => x, answer: (x) => x };
const KEYWARD: Names = { path: pathToKeyward, body: toKeyward, answer: toVault };

/** A token of null sends none; none given sends the root token. */
function target(name: Target['name'], url: string, rootToken: string, names: Names): Target {
  return {
    name,
    url,
    rootToken,
    async request(method, path, o = {}) {
      const body = o.body === undefined ? undefined : names.body(o.body);
      const r = await baoRequest(url, method, names.path(path), { token: o.token === null ? undefined : (o.token ?? rootToken), body, namespace: o.namespace });
      return { status: r.status, body: names.answer(r.body) };
    },
  };
}

export const openBaoTarget = (url: string, rootToken: string): Target => target('openbao', url, rootToken, AS_IS);
export const engineTarget = (url: string, rootToken: string): Target => target('engine', url, rootToken, KEYWARD);
