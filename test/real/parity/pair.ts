// Real OpenBao (with the GCP plugin) and the embedded engine side by side, both pointed at one cloud
// emulator, so the same request can be asked of both. The plugin gets the emulator's key file through
// the catalog's env (GOOGLE_APPLICATION_CREDENTIALS: its token_uri is the emulator's token endpoint);
// the in-process engine reads the same variable from its own environment.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CloudEmulator } from '../../../src/cloud-emulator';
import { SA, startCloudFixture } from '../../support/cloud-fixture';
import { startTestEngine } from '../../support/engine';
import { startOpenBaoDev, type OpenBaoDev } from '../../support/openbao';
import { differences, type FieldDifference } from './compare';
import { engineTarget, openBaoTarget, type Answer, type Target } from './targets';

export interface Pair {
  emu: CloudEmulator;
  openbao: Target;
  engine: Target;
  /** custom_endpoint pointing the four Vault keys at the emulator (Go clients want the service path). */
  endpoints: Record<'api' | 'iam' | 'crm' | 'compute', string>;
  bao: OpenBaoDev;
  close(): Promise<void>;
}

export async function startPair(): Promise<Pair> {
  const emu = await startCloudFixture();
  const bao = await startOpenBaoDev();
  const credentials = join(bao.dir, 'keyward-sa.json');
  writeFileSync(credentials, JSON.stringify(emu.keyFile(SA.keyward.email)), { mode: 0o600 });
  await bao.setPluginEnv([`GOOGLE_APPLICATION_CREDENTIALS=${credentials}`]);
  const savedEnv = process.env.GOOGLE_APPLICATION_CREDENTIALS;
  process.env.GOOGLE_APPLICATION_CREDENTIALS = credentials;
  // OpenBao is a community server: the engine runs as one (edition oss) so neither side offers Enterprise paths.
  const engine = await startTestEngine({ edition: 'oss' });
  return {
    emu,
    bao,
    openbao: openBaoTarget(bao.url, bao.token),
    engine: engineTarget(engine.url, engine.rootToken),
    endpoints: { api: emu.url, iam: `${emu.url}/`, crm: `${emu.url}/`, compute: `${emu.url}/compute/v1/` },
    async close() {
      await engine.close();
      await bao.close();
      await emu.close();
      if (savedEnv === undefined) delete process.env.GOOGLE_APPLICATION_CREDENTIALS;
      else process.env.GOOGLE_APPLICATION_CREDENTIALS = savedEnv;
    },
  };
}

export interface Compared {
  request: string;
  openbao: Answer;
  engine: Answer;
  differences: FieldDifference[];
}

/** Asks both servers the same thing (tokens may differ per side) and compares the answers. */
export async function ask(
  p: Pair,
  request: string,
  method: string,
  path: string,
  o: { token?: (t: Target) => string | null; body?: unknown; namespace?: string } = {},
): Promise<Compared> {
  const [a, b] = await Promise.all([p.openbao, p.engine].map((t) => t.request(method, path, { body: o.body, namespace: o.namespace, token: o.token ? o.token(t) : undefined })));
  return { request, openbao: a, engine: b, differences: differences(a, b) };
}
