import { readFileSync } from 'node:fs';
import { VaultClient } from './src/client/vault-client';
import { desiredFromManifest } from './src/reconcile/desired';
import { readLive } from './src/reconcile/live';
import { planFrom } from './src/reconcile/plan';
import { parseManifest } from './src/schema/manifest';
import { loadRecordFile } from './src/reconcile/record';
async function main() {
  let t = Date.now();
  const m = parseManifest(JSON.parse(readFileSync('/tmp/kw/k.json', 'utf8')));
  const d = desiredFromManifest(m);
  console.log('desired ms', Date.now() - t); t = Date.now();
  const rec = loadRecordFile('/tmp/kw/k.last-applied.json');
  const c = new VaultClient({ address: 'http://127.0.0.1:18200', token: 'T' });
  const live = await readLive(c, d, rec, { parallelism: 16 });
  console.log('live ms', Date.now() - t); t = Date.now();
  const p = planFrom(d, live, rec, { address: 'x' });
  console.log('diff ms', Date.now() - t, p.summary);
  await c.close();
}
main();
