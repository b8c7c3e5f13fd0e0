// What the login benches share: login bodies with distinct JWTs, and a closed-loop load of
// concurrent clients over one undici pool.

import type { Dispatcher, Pool } from 'undici';
import type { CloudEmulator } from '../src/cloud-emulator';
import { SA, audience } from '../test/support/cloud-fixture';

/**
 * `n` login bodies for `role`, each with its own JWT (a jti each), minted up front so the load
 * generator only sends them and nothing can be served from a cache of verified tokens.
 */
export function loginBodies(emu: CloudEmulator, role: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) =>
    JSON.stringify({ role, jwt: emu.mintServiceAccountJwt({ account: SA.app.email, audience: audience(role), ttl: 900, claims: { jti: `${role}-${i}` } }) }),
  );
}

/**
 * One request through undici's dispatch handler API, body discarded; resolves to the status. The
 * `request()` wrapper's body stream and async resource cost about as much CPU as the exchange
 * itself, and this process shares the machine's cores with the engine it measures.
 */
function send(pool: Pool, method: 'GET' | 'POST', path: string, body: string | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    let status = 0;
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart() {},
      onResponseStart(_c, statusCode) {
        status = statusCode;
      },
      onResponseEnd: () => resolve(status),
      onResponseError: (_c, e) => reject(e),
    };
    pool.dispatch({ method, path, headers: { 'content-type': 'application/json' }, body }, handler);
  });
}

/**
 * `concurrency` clients send requests back to back for `seconds`, `bodies` in turn (none for GET).
 * Returns the requests answered per second; any non-200 answer fails the run.
 */
export async function load(pool: Pool, o: { method: 'GET' | 'POST'; path: string; bodies?: string[]; seconds: number; concurrency: number }): Promise<number> {
  const bodies = o.bodies ?? [];
  let next = 0;
  let ok = 0;
  let failed = 0;
  const deadline = Date.now() + o.seconds * 1000;
  const client = async () => {
    while (Date.now() < deadline) {
      const body = bodies.length > 0 ? bodies[next++ % bodies.length] : undefined;
      if ((await send(pool, o.method, `/v1/${o.path}`, body)) === 200) ok++;
      else failed++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: o.concurrency }, client));
  if (failed > 0) throw new Error(`${failed} requests to ${o.path} failed`);
  return ok / ((performance.now() - t0) / 1000);
}
