// What the login benches share: login bodies with distinct JWTs, and a closed-loop load of
// concurrent clients over one undici pool.

import type { Pool } from 'undici';
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
 * `concurrency` clients send requests back to back for `seconds`, `bodies` in turn (none for GET).
 * Returns the requests answered per second; any non-200 answer fails the run.
 */
export async function load(
  pool: Pool,
  o: { method: 'GET' | 'POST'; path: string; bodies?: string[]; seconds: number; concurrency: number },
): Promise<number> {
  const bodies = o.bodies ?? [];
  let next = 0;
  let ok = 0;
  let failed = 0;
  const deadline = Date.now() + o.seconds * 1000;
  const client = async () => {
    while (Date.now() < deadline) {
      const body = bodies.length > 0 ? bodies[next++ % bodies.length] : undefined;
      const res = await pool.request({ method: o.method, path: `/v1/${o.path}`, headers: { 'content-type': 'application/json' }, body });
      await res.body.dump();
      if (res.statusCode === 200) ok++;
      else failed++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: o.concurrency }, client));
  if (failed > 0) throw new Error(`${failed} requests to ${o.path} failed`);
  return ok / ((performance.now() - t0) / 1000);
}
