// The SystemContext a system family gets from the engine, for tests that run snapshot attempts
// and schedulers directly: a fresh seal key, the store's JSON view, no reload.

import { randomBytes } from 'node:crypto';
import type { SystemContext } from '../../src/engine/route-family';
import type { Clock } from '../../src/engine/clock';
import { silentLogger, type Logger } from '../../src/engine/log';
import { AesSeal } from '../../src/engine/seal/aes-seal';
import { JsonStore } from '../../src/engine/storage/json-store';
import type { Storage } from '../../src/engine/storage/storage';

export function systemContext(o: { storage: Storage; clock: Clock; dataDir: string; log?: Logger }): SystemContext {
  return {
    rawStorage: o.storage,
    store: new JsonStore(o.storage),
    seal: new AesSeal(randomBytes(32)),
    edition: 'enterprise',
    clock: o.clock,
    log: o.log ?? silentLogger,
    dataDir: o.dataDir,
    reload: async () => undefined,
  };
}
