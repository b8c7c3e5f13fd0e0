// The examples synthesize: each app run with CDKTF_OUTDIR writes a valid manifest (and the provider
// launcher) per stack, and no secret from the environment lands in the output.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SAMPLE_KEYLESS_AUDIENCE } from '../../../src/cloud-emulator/sample';
import { MANIFEST_FILE_NAME, parseManifest, type SecretRef } from '../../../src/schema/manifest';
import { serviceAccountKeyJson } from '../../unit/constructs/fixtures';

const REPO = resolve(__dirname, '../../..');
const TSX = join(REPO, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const SECRETS = {
  KEYWARD_CLOUD_CREDENTIALS: serviceAccountKeyJson(),
  S3_SECRET_ACCESS_KEY: 's3-example-secret-0123',
  GCS_SERVICE_ACCOUNT_KEY: '{"type":"service_account","private_key":"gcs-example-secret-4567"}',
};

function synth(example: string): { dir: string; manifests: Record<string, ReturnType<typeof parseManifest>>; texts: string[] } {
  const dir = mkdtempSync(join(tmpdir(), `keyward-example-${example}-`));
  const r = spawnSync(process.execPath, [TSX, join(REPO, 'examples', example, 'main.ts')], {
    cwd: join(REPO, 'examples', example),
    env: { ...process.env, ...SECRETS, CDKTF_OUTDIR: dir },
    encoding: 'utf8',
  });
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
  const manifests: Record<string, ReturnType<typeof parseManifest>> = {};
  const texts: string[] = [];
  for (const stack of readdirSync(join(dir, 'stacks'))) {
    for (const f of readdirSync(join(dir, 'stacks', stack), { recursive: true, encoding: 'utf8' })) {
      const file = join(dir, 'stacks', stack, f);
      if (statSync(file).isFile()) texts.push(readFileSync(file, 'utf8'));
    }
    manifests[stack] = parseManifest(JSON.parse(readFileSync(join(dir, 'stacks', stack, MANIFEST_FILE_NAME), 'utf8')));
  }
  return { dir, manifests, texts };
}

describe('examples', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const noSecrets = (texts: string[]) => {
    for (const v of Object.values(SECRETS)) for (const t of texts) expect(t.includes(v)).toBe(false);
  };

  it('basic: iam and vm roles, emulator endpoints, a local snapshot config', () => {
    const { dir, manifests, texts } = synth('basic');
    dirs.push(dir);
    const m = manifests.basic;
    expect(m.authBackends[0].roles.map((r) => `${r.name}:${r.type}`)).toEqual(['app:iam', 'web:vm']);
    expect((m.authBackends[0].config?.credentials as SecretRef | undefined)?.secretRef.env).toBe('KEYWARD_CLOUD_CREDENTIALS');
    expect(m.snapshotConfigs.map((s) => s.storage_type)).toEqual(['local']);
    // The keyless mount: workload identity federation against the sample pool, no key anywhere.
    const keyless = m.authBackends[1];
    expect(keyless.path).toBe('keyless');
    expect(keyless.config).toMatchObject({ service_account_email: 'keyward@ops-project.iam.gserviceaccount.com', identity_token_audience: SAMPLE_KEYLESS_AUDIENCE });
    expect(keyless.config?.credentials).toBeUndefined();
    expect(Object.keys(keyless.config?.custom_endpoint ?? {}).sort()).toEqual(['api', 'compute', 'crm', 'iam', 'iamcredentials', 'sts']);
    expect(keyless.roles.map((r) => `${r.name}:${r.type}`)).toEqual(['app:iam']);
    noSecrets(texts);
  });

  it('snapshots: local, S3, GCS and Azure configs', () => {
    const { dir, manifests, texts } = synth('snapshots');
    dirs.push(dir);
    expect(manifests.snapshots.snapshotConfigs.map((s) => s.storage_type)).toEqual(['local', 'cloudone-store', 'cloudtwo-store', 'cloudthree-store']);
    noSecrets(texts);
  });

  it('multi-env: two stacks, two mounts', () => {
    const { dir, manifests } = synth('multi-env');
    dirs.push(dir);
    expect(Object.keys(manifests).sort()).toEqual(['dev', 'prod']);
    expect(manifests.dev.authBackends.map((b) => b.path)).toEqual(['cloud-dev']);
    expect(manifests.prod.authBackends.map((b) => b.path)).toEqual(['cloud-prod']);
  });
});
