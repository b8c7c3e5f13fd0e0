// A reusable emulated cloud for tests: an org/folder/project tree, service accounts (one deleted,
// one disabled), instances and instance groups; plus helpers to mount and configure the cloud auth
// method of a test engine against the emulator (custom_endpoint), so nothing reaches the internet.

import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCloudEmulator, type CloudEmulator } from '../../src/cloud-emulator';
import { api, type ApiResult } from './engine';

export const ORG_ID = '100';
export const FOLDER_OUTER = '200';
export const FOLDER_INNER = '201';

export const SA = {
  /** The engine's own identity (credentials in the config). */
  keyward: { email: 'keyward@keyward-ops.iam.gserviceaccount.com', uniqueId: '110000000000000000000', project: 'keyward-ops' },
  app: { email: 'app@proj-a.iam.gserviceaccount.com', uniqueId: '110000000000000000001', project: 'proj-a' },
  other: { email: 'other@proj-b.iam.gserviceaccount.com', uniqueId: '110000000000000000002', project: 'proj-b' },
  vm: { email: 'vm-sa@proj-a.iam.gserviceaccount.com', uniqueId: '110000000000000000003', project: 'proj-a' },
  deleted: { email: 'gone@proj-a.iam.gserviceaccount.com', uniqueId: '110000000000000000004', project: 'proj-a' },
  disabled: { email: 'off@proj-a.iam.gserviceaccount.com', uniqueId: '110000000000000000005', project: 'proj-a' },
} as const;

export const cloudDescription = {
  organizations: [{ id: ORG_ID, displayName: 'example.org' }],
  folders: [
    { id: FOLDER_OUTER, parent: `organizations/${ORG_ID}` },
    { id: FOLDER_INNER, parent: `folders/${FOLDER_OUTER}` },
  ],
  projects: [
    { id: 'proj-a', number: '1001', parent: `folders/${FOLDER_INNER}` },
    { id: 'proj-b', number: '1002', parent: `organizations/${ORG_ID}` },
    { id: 'keyward-ops', number: '1003', parent: `organizations/${ORG_ID}` },
  ],
  serviceAccounts: [{ ...SA.keyward }, { ...SA.app, keys: 2 }, { ...SA.other }, { ...SA.vm }, { ...SA.deleted, deleted: true }, { ...SA.disabled, disabled: true }],
  instances: [
    { name: 'web-1', id: '5001', project: 'proj-a', zone: 'us-east1-b', labels: { env: 'prod', team: 'web' }, serviceAccount: SA.vm.email },
    { name: 'web-2', id: '5002', project: 'proj-a', zone: 'us-west1-a', labels: { env: 'dev' }, serviceAccount: SA.vm.email },
    { name: 'batch-1', id: '5003', project: 'proj-b', zone: 'europe-west1-c', serviceAccount: SA.other.email },
    { name: 'stopped-1', id: '5004', project: 'proj-a', zone: 'us-east1-b', status: 'TERMINATED', serviceAccount: SA.vm.email },
  ],
  instanceGroups: [
    { name: 'web-group', project: 'proj-a', zone: 'us-east1-b', instances: ['web-1'] },
    { name: 'web-regional', project: 'proj-a', region: 'us-west1', instances: ['web-2'] },
    { name: 'empty-group', project: 'proj-a', zone: 'us-east1-b', instances: [] },
  ],
};

/** A workload identity pool provider as the emulator's description takes it (input shape). */
export interface PoolProvider {
  id: string;
  issuerUri: string;
  attributeCondition?: string;
  allowedAudiences?: string[];
}

/** keyward-ops's project number in cloudDescription: pools there are named by it. */
export const OPS_PROJECT_NUMBER = '1003';

/** The audience a WIF config names for `provider` of `pool` in keyward-ops. */
export const poolProviderAudience = (pool: string, provider: string) =>
  `https://iam.googleapis.com/projects/${OPS_PROJECT_NUMBER}/locations/global/workloadIdentityPools/${pool}/providers/${provider}`;

/**
 * cloudDescription plus a workload identity pool in keyward-ops with these providers, whose
 * principals may impersonate SA.keyward (roles/iam.workloadIdentityUser on the pool's principalSet).
 */
export function withWorkloadIdentityPool(pool: string, providers: PoolProvider[]) {
  const principals = `principalSet://iam.googleapis.com/projects/${OPS_PROJECT_NUMBER}/locations/global/workloadIdentityPools/${pool}/*`;
  return {
    ...cloudDescription,
    serviceAccounts: cloudDescription.serviceAccounts.map((sa) =>
      sa.email === SA.keyward.email ? { ...sa, bindings: [{ role: 'roles/iam.workloadIdentityUser', members: [principals] }] } : sa,
    ),
    workloadIdentityPools: [{ project: 'keyward-ops', id: pool, providers }],
  };
}

/** Test keys are generated once per machine and reused (RSA generation dominates start-up). */
export const FIXTURE_KEY_DIR = join(tmpdir(), 'keyward-cloud-fixture-keys');

export async function startCloudFixture(opts: { clock?: { now(): number }; pageSize?: number } = {}): Promise<CloudEmulator> {
  return startCloudEmulator({
    description: cloudDescription,
    clock: opts.clock,
    pageSize: opts.pageSize,
    metadataServiceAccount: SA.keyward.email,
    keyDir: FIXTURE_KEY_DIR,
  });
}

/** custom_endpoint pointing every provider service at the emulator. */
export function emulatorEndpoints(emu: { url: string }): Record<string, string> {
  return { api: emu.url, iam: emu.url, crm: emu.url, compute: emu.url };
}

/** Enables the cloud method at `mount` and configures it with the keyward account's key file. */
export async function mountCloudAuth(engine: { url: string }, emu: CloudEmulator, mount = 'cloud', extra: Record<string, unknown> = {}): Promise<void> {
  const enable = await api(engine, 'POST', `sys/auth/${mount}`, { body: { type: 'cloud' } });
  if (enable.status >= 300) throw new Error(`enable ${mount}: ${enable.status} ${enable.text}`);
  const cfg = await api(engine, 'POST', `auth/${mount}/config`, {
    body: { credentials: JSON.stringify(emu.keyFile(SA.keyward.email)), custom_endpoint: emulatorEndpoints(emu), ...extra },
  });
  if (cfg.status >= 300) throw new Error(`configure ${mount}: ${cfg.status} ${cfg.text}`);
}

export function login(engine: { url: string }, role: string, jwt: string, mount = 'cloud'): Promise<ApiResult> {
  return api(engine, 'POST', `auth/${mount}/login`, { token: null, body: { role, jwt } });
}

export const audience = (role: string) => `http://vault/${role}`;

/** Writes each role (name → body) on the mount and fails the test on any non-2xx answer. */
export async function writeRoles(engine: { url: string }, roles: Record<string, unknown>, mount = 'cloud'): Promise<void> {
  for (const [name, body] of Object.entries(roles)) {
    const r = await api(engine, 'POST', `auth/${mount}/role/${name}`, { body });
    if (r.status >= 300) throw new Error(`writing role ${name} failed: ${r.status} ${r.text}`);
  }
}
