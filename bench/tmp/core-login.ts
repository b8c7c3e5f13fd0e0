import { Pool } from 'undici';
import { startTestEngine, api } from '../../test/support/engine';
import { staticAuthMethod } from '../../test/support/static-auth';
(async () => {
  const engine = await startTestEngine({ authMethods: [staticAuthMethod] });
  await api(engine, 'POST', 'sys/auth/static', { body: { type: 'static' } });
  await api(engine, 'POST', 'auth/static/role/r', { body: { token_ttl: 600 } });
  const pool = new Pool(engine.url, { connections: 32, pipelining: 1 });
  const body = JSON.stringify({ role: 'r' });
  const N = 20000; let done = 0;
  const t0 = process.hrtime.bigint();
  async function worker() { while (done < N) { done++; const r = await pool.request({ path: '/v1/auth/static/login', method: 'POST', body, headers: { 'content-type': 'application/json' } }); await r.body.text(); if (r.statusCode !== 200) throw new Error(String(r.statusCode)); } }
  await Promise.all(Array.from({ length: 64 }, worker));
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  console.log(`logins/s: ${(N / s).toFixed(0)}`);
  await pool.close(); await engine.close();
})();
