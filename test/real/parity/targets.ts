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

export function openBaoTarget(url: string, rootToken: string): Target {
  return {
    name: 'openbao',
    url,
    rootToken,
    async request(method, path, o = {}) {
      const r = await baoRequest(url, method, path, { token: o.token === null ? undefined : (o.token ?? rootToken), body: o.body, namespace: o.namespace });
      return { status: r.status, body: r.body };
    },
  };
}

export function engineTarget(url: string, rootToken: string): Target {
  return {
    name: 'engine',
    url,
    rootToken,
    async request(method, path, o = {}) {
      const body = o.body === undefined ? undefined : toKeyward(o.body);
      const r = await baoRequest(url, method, pathToKeyward(path), { token: o.token === null ? undefined : (o.token ?? rootToken), body, namespace: o.namespace });
      return { status: r.status, body: toVault(r.body) };
    },
  };
}
