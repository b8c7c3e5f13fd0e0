import { Pool } from 'undici';
(async () => {
  const pool = new Pool('http://127.0.0.1:18555', { connections: 32 });
  const body = JSON.stringify({ role: 'r' });
  const N = 20000; let done = 0;
  const t0 = process.hrtime.bigint();
  async function worker() { while (done < N) { done++; const r = await pool.request({ path: '/v1/auth/static/login', method: 'POST', body, headers: { 'content-type': 'application/json' } }); await r.body.text(); } }
  await Promise.all(Array.from({ length: 64 }, worker));
  console.log(`logins/s: ${(N / (Number(process.hrtime.bigint() - t0) / 1e9)).toFixed(0)}`);
  await pool.close();
})();
