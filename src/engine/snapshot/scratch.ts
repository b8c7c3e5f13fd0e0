// The engine's scratch directory for snapshot work that needs a whole file (the manual save's
// archive, a restore's spooled state.bin); leftovers of a crash are removed at start.

import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { SystemContext } from '../route-family';

export const SCRATCH_DIR = 'snapshot-scratch';

/** A fresh path inside the scratch directory (created 0700 on first use). */
export async function scratchFile(sys: SystemContext): Promise<string> {
  const dir = join(sys.dataDir, SCRATCH_DIR);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return join(dir, `${randomUUID()}.snap`);
}
