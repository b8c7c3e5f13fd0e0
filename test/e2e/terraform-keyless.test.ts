// Keyless cloud auth through cdktf and the real terraform CLI (offline), on the embedded engine and
// the cloud emulator over loopback, nothing mocked: a stack with a workload identity federation mount
// (no key anywhere; iam and vm roles) and a key-based mount with rotationPeriod. Logins work on the
// WIF mount with no credentials stored (the emulator saw the exchange and the impersonation); a
// redeploy has no changes; after rotate-root and after an automated rotation on the engine's injected
// clock, a redeploy still has no changes and the server keeps the rotated key (the declared key is
// not sent back).

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startCloudEmulator, type CloudEmulator } from '../../src/cloud-emulator';
import { ManualClock } from '../../src/engine/clock';
import { FIXTURE_KEY_DIR, SA, audience, login, poolProviderAudience, withWorkloadIdentityPool } from '../support/cloud-fixture';
import { api, startTestEngine, ROOT_TOKEN } from '../support/engine';
import { runAsync } from '../support/run-async';
import { requireProviderBin } from '../support/provider-bin';
import { REPO, terraformWorkdir, type TerraformWorkdir } from '../support/terraform-workdir';
import { cdktfEnv } from '../support/cdktf-env';
import { until } from '../support/poll';

const CDKTF = join(REPO, 'node_modules', '.bin', 'cdktf');
const TSX = join(REPO, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const APP = join(__dirname, 'fixtures', 'keyless-app.ts');

const POOL = 'e2e-pool';
const AUDIENCE = poolProviderAudience(POOL, 'engine');

const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, ''); // eslint-disable-line no-control-regex

describe('cdktf deploy of a keyless (WIF) stack and a rotated key on the engine and the emulator', () => {
  // One clock for the engine and the emulator: automated rotation runs when the test moves it.
  const clock = new ManualClock(Date.now());
  let engine: Awaited<ReturnType<typeof startTestEngine>>;
  let emu: CloudEmulator;
  let wd: TerraformWorkdir;
  let creds: string;

  beforeAll(async () => {
    requireProviderBin();
    engine = await startTestEngine({ clock });
    // The pool's provider trusts this engine's issuer, found over HTTP as Google does.
    emu = await startCloudEmulator({
      description: withWorkloadIdentityPool(POOL, [
        { id: 'engine', issuerUri: `${engine.url}/v1/identity/oidc/plugins`, attributeCondition: 'assertion.sub.startsWith("plugin-identity:root:auth:")' },
      ]),
      clock,
      keyDir: FIXTURE_KEY_DIR,
    });
    creds = JSON.stringify(emu.keyFile(SA.keyward.email));
    wd = terraformWorkdir('keyward-keyless-e2e-', () => ({}));
    wd.write(
      'cdktf.json',
      JSON.stringify({
        language: 'typescript',
        app: `node ${TSX} ${APP}`,
        projectId: 'keyward-keyless-e2e',
        sendCrashReports: 'false',
        terraformProviders: [],
        terraformModules: [],
      }),
    );
  }, 60_000);

  afterAll(async () => {
    await engine?.close();
    await emu?.close();
    wd?.close();
  });

  async function deploy(): Promise<string> {
    const r = await runAsync(CDKTF, ['deploy', '--auto-approve'], {
      cwd: wd.dir,
      env: cdktfEnv(
        { url: engine.url, token: ROOT_TOKEN },
        {
          KW_ADDRESS: engine.url,
          KW_EMULATOR: emu.url,
          KW_WIF_ACCOUNT: SA.keyward.email,
          KW_WIF_AUDIENCE: AUDIENCE,
          KW_APP_ACCOUNT: SA.app.email,
          KW_VM_PROJECT: 'proj-a',
          KW_CREDS: creds,
        },
      ),
    });
    const text = strip(r.stdout + r.stderr);
    wd.outputs.push(text);
    expect({ code: r.status, tail: r.status === 0 ? '' : text.slice(-4000) }).toEqual({ code: 0, tail: '' });
    return text;
  }

  const config = async (mount: string) => (await api(engine, 'GET', `auth/${mount}/config`)).body.data;
  const keyEvents = (action: 'create' | 'delete') => emu.records.keyEvents.filter((e) => e.action === action).map((e) => e.kid);
  const iamLogin = (mount: string) => login(engine, 'iam-app', emu.mintServiceAccountJwt({ account: SA.app.email, audience: audience('iam-app') }), mount);
  const vmLogin = (mount: string) => login(engine, 'vm-any', emu.mintInstanceToken({ instance: 'web-1', audience: audience('vm-any') }), mount);

  it('deploys, logs in with no key, redeploys with no changes, also after rotate-root and an automated rotation', async () => {
    await deploy();

    // The WIF mount holds no key: only the account to impersonate and the audience.
    const wif = await config('wif');
    expect(wif).toMatchObject({ service_account_email: SA.keyward.email, identity_token_audience: AUDIENCE, identity_token_ttl: 600 });
    expect(wif.private_key_id).toBeUndefined();
    expect(wif.client_email).toBeUndefined();
    expect(wif.custom_endpoint).toMatchObject({ sts: emu.url, iamcredentials: emu.url });
    const keyed = await config('keyed');
    expect(keyed.rotation_period).toBe(3600);
    const declaredKid = keyed.private_key_id as string;
    expect(emu.listKeyIds(SA.keyward.email)).toEqual([declaredKid]);

    // iam and vm logins on the WIF mount: the emulator exchanged the mount's identity token and let
    // the federated principal impersonate the account; no key file reached its token endpoint.
    const tokenCalls = emu.counts['token'] ?? 0;
    const iam = await iamLogin('wif');
    expect({ status: iam.status, errors: iam.body?.errors }).toEqual({ status: 200, errors: undefined });
    expect(iam.body.auth.policies).toEqual(['app', 'default']);
    const vm = await vmLogin('wif');
    expect({ status: vm.status, errors: vm.body?.errors }).toEqual({ status: 200, errors: undefined });
    expect(vm.body.auth.metadata.instance_name).toBe('web-1');
    const accessor = (await api(engine, 'GET', 'sys/auth')).body.data['wif/'].accessor as string;
    const sub = `plugin-identity:root:auth:${accessor}`;
    expect(emu.records.exchanges).toEqual([expect.objectContaining({ ok: true, subject: sub })]);
    expect(emu.records.impersonations).toEqual([
      expect.objectContaining({ ok: true, serviceAccount: SA.keyward.email, principal: expect.stringContaining(`/workloadIdentityPools/${POOL}/subject/${sub}`) }),
    ]);
    expect(emu.counts['token'] ?? 0).toBe(tokenCalls);

    // Redeploy: nothing to do.
    expect(await deploy()).toMatch(/No changes/);

    // rotate-root: the server switches to a new key and deletes the declared one at the provider.
    const rotated = await api(engine, 'POST', 'auth/keyed/config/rotate-root', { body: {} });
    expect(rotated.status).toBe(200);
    const rotatedKid = rotated.body.data.private_key_id as string;
    expect(rotatedKid).not.toBe(declaredKid);
    expect(emu.listKeyIds(SA.keyward.email)).toEqual([rotatedKid]);
    expect((await iamLogin('keyed')).status).toBe(200);

    // The rotated key is not drift: no changes, and the server still holds the rotated key.
    expect(await deploy()).toMatch(/No changes/);
    expect((await config('keyed')).private_key_id).toBe(rotatedKid);
    expect(emu.listKeyIds(SA.keyward.email)).toEqual([rotatedKid]);

    // Automated rotation (rotation_period 1h) on the engine's clock, then the same redeploy.
    const deletes = keyEvents('delete').length;
    await clock.advance(3600_000);
    await until('the automated rotation', () => keyEvents('delete').length > deletes);
    const autoKid = (await config('keyed')).private_key_id as string;
    expect(autoKid).not.toBe(rotatedKid);
    expect(emu.listKeyIds(SA.keyward.email)).toEqual([autoKid]);
    expect(await deploy()).toMatch(/No changes/);
    expect((await config('keyed')).private_key_id).toBe(autoKid);
    expect((await iamLogin('keyed')).status).toBe(200);

    // An hour on, the WIF mount's cached access token has expired: logins federate again.
    expect((await iamLogin('wif')).status).toBe(200);
    expect(emu.records.exchanges.filter((e) => e.ok)).toHaveLength(2);
    expect((await config('wif')).private_key_id).toBeUndefined();

    // No key anywhere in the project (state, cdktf.out) nor in any output.
    const privateKeyLine = (JSON.parse(creds) as { private_key: string }).private_key.split('\n')[3];
    const files: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d)) {
        const p = join(d, e);
        if (e === '.terraform' || e === 'node_modules' || e === 'terraform.d') continue;
        if (statSync(p).isDirectory()) walk(p);
        else files.push(p);
      }
    };
    walk(wd.dir);
    expect(files.some((f) => f.endsWith('.tfstate'))).toBe(true);
    for (const f of files) expect({ f, leaked: readFileSync(f, 'latin1').includes(privateKeyLine) }).toEqual({ f, leaked: false });
    for (const o of wd.outputs) expect(o.includes(privateKeyLine)).toBe(false);
  }, 600_000);
});
