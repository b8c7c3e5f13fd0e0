import { startTestEngine, api } from '../../test/support/engine';
import { staticAuthMethod } from '../../test/support/static-auth';
(async () => {
  const engine = await startTestEngine({ authMethods: [staticAuthMethod], listen: '127.0.0.1:18555' });
  await api(engine, 'POST', 'sys/auth/static', { body: { type: 'static' } });
  await api(engine, 'POST', 'auth/static/role/r', { body: { token_ttl: 600 } });
  console.log('ready'); setTimeout(() => process.exit(0), 12000);
})();
