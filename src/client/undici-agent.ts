// undici's Agent with its request API, without undici's index: the index also loads every other
// dispatcher, fetch, WebSocket (which loads Node's own copy of undici), the mocks and the cache
// stores, about 85 ms of CPU per process against 28 ms for these three modules. The client is
// made in every Terraform provider process that reaches the server and in every CLI run. The
// index does the same Object.assign; a layout these paths do not match falls back to it.

import type { Agent as UndiciAgent } from 'undici';

let agent: typeof UndiciAgent | undefined;

export function undiciAgent(): typeof UndiciAgent {
  if (agent) return agent;
  try {
    const Agent = require('undici/lib/dispatcher/agent') as typeof UndiciAgent;
    const Dispatcher = require('undici/lib/dispatcher/dispatcher') as { prototype: object };
    Object.assign(Dispatcher.prototype, require('undici/lib/api') as object);
    if (typeof (Agent.prototype as { request?: unknown }).request !== 'function') throw new Error('no request API');
    agent = Agent;
  } catch {
    agent = (require('undici') as typeof import('undici')).Agent;
  }
  return agent;
}
