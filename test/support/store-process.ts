// Runs one object-store emulator in its own process (`node -r tsx/cjs store-process.ts s3|gcs|azure`)
// and prints its config fields as one JSON line; tests SIGSTOP it to simulate a stalled store.

import { startAzurite, startGcs, startS3, type RunningStore } from './object-stores';

async function main(): Promise<void> {
  const kind = process.argv[2];
  const store: RunningStore = kind === 's3' ? await startS3() : kind === 'gcs' ? await startGcs() : await startAzurite();
  process.stdout.write(JSON.stringify({ fields: store.fields, pid: store.pid ?? process.pid }) + '\n');
  process.on('SIGTERM', () => void store.close().then(() => process.exit(0)));
}

void main();
