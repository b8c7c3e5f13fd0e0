// `npm start`: a guided local run, offline. Starts the embedded engine and the cloud emulator,
// deploys examples/basic (cdktf + terraform when terraform is installed, else `keyward apply
// --app`), logs in once with an emulator-minted JWT, logs in again through the example's keyless
// mount (workload identity federation, deployed with the rest), takes a snapshot, and says how to
// continue. Its work directory holds the engine's seal key and data: it is removed when the run
// ends, fails or is interrupted (SIGINT, SIGTERM), so no run leaves a key in the temp directory.

import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { request } from 'undici';
import { startCloudEmulator } from '../src/cloud-emulator';
import { SAMPLE_ENGINE_ISSUER, sampleDescription } from '../src/cloud-emulator/sample';
import { startEngine } from '../src/engine/engine';

const REPO = resolve(__dirname, '..');
const TSX = join(REPO, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const BASIC = join(REPO, 'examples', 'basic', 'main.ts');
const DEPLOYER = 'keyward@ops-project.iam.gserviceaccount.com';
const APP_ACCOUNT = 'app@demo-project.iam.gserviceaccount.com';

const say = (s = '') => process.stdout.write(`${s}\n`);
const step = (n: number, s: string) => say(`\n[${n}/6] ${s}`);

/** What an interruption must stop and remove: set as the run goes. */
const running: { work?: string; child?: ChildProcess; stop: (() => Promise<void>)[] } = { stop: [] };

function removeWork(): void {
  if (running.work) rmSync(running.work, { recursive: true, force: true });
  running.work = undefined;
}

// The last resort for any exit path (an uncaught error included): synchronous, so it runs on 'exit'.
process.on('exit', removeWork);
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  // on, not once: a repeated signal (tsx relays one again when the script is busy in a spawnSync,
  // a second Ctrl-C) must not fall back to the default exit while the cleanup runs.
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    // The deploy runs in its own process group (detached below), so the whole tree is stopped
    // here: cdktf, terraform and the provider would otherwise keep writing into the directory.
    if (running.child?.pid !== undefined && running.child.exitCode === null) {
      try {
        process.kill(-running.child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    void Promise.allSettled(running.stop.map((f) => f())).finally(() => {
      removeWork();
      process.stderr.write(`\nnpm start interrupted: stopped the engine and the emulator and removed the work directory\n`);
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  });
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((ok, fail) => {
    const child = spawn(cmd, args, { cwd, env, detached: true });
    running.child = child;
    let out = '';
    child.stdout.on('data', (d) => (out += String(d)));
    child.stderr.on('data', (d) => (out += String(d)));
    child.on('error', fail);
    child.on('close', (code) => (code === 0 ? ok(out) : fail(new Error(`${cmd} ${args.join(' ')} exited ${code}:\n${out.slice(-3000)}`))));
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function call(url: string, method: string, path: string, token?: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await request(`${url}/v1/${path}`, {
    method: method as 'GET',
    headers: { ...(token ? { 'x-vault-token': token } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.body.text();
  return { status: res.statusCode, json: text ? JSON.parse(text) : undefined };
}

/**
 * Asynchronous, not spawnSync: tsx SIGKILLs a script that does not take a relayed signal within
 * 60 ms, and a script blocked in spawnSync cannot, so Ctrl-C there would skip the cleanup.
 */
const hasTerraform = () =>
  new Promise<boolean>((ok) => {
    const child = spawn('terraform', ['version'], { stdio: 'ignore', env: { ...process.env, CHECKPOINT_DISABLE: '1' } });
    child.on('error', () => ok(false));
    child.on('close', (code) => ok(code === 0));
  });

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'keyward-start-'));
  running.work = work;
  const snapshotDir = join(work, 'snapshots');
  mkdirSync(snapshotDir);

  step(1, 'Starting the cloud emulator and the embedded engine');
  const engine = await startEngine({ dev: true, listen: '127.0.0.1:0', edition: 'enterprise', dataDir: join(work, 'data'), logLevel: 'warn' });
  running.stop.push(() => engine.close());
  // The sample's workload identity pool trusts an engine on :8200; this run's engine is elsewhere.
  const issuer = `${engine.url}/v1/identity/oidc/plugins`;
  const description = JSON.parse(JSON.stringify(sampleDescription).replaceAll(SAMPLE_ENGINE_ISSUER, issuer)) as unknown;
  const emulator = await startCloudEmulator({ description, host: '127.0.0.1', port: 0 });
  running.stop.push(() => emulator.close());
  const rootToken = engine.rootToken ?? '';
  try {
    say(`  cloud emulator  ${emulator.url}  (${emulator.description.serviceAccounts.length} service accounts, ${emulator.description.instances.length} instances)`);
    say(`  engine          ${engine.url}  (dev mode, enterprise edition, data in ${engine.dataDir})`);

    step(2, 'Deploying examples/basic');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      CHECKPOINT_DISABLE: '1',
      // The scratch project installs keyward's provider from its own terraform.d; a machine-wide
      // plugin cache filled by another checkout's launcher (same version, other bytes) would fail init.
      CDKTF_DISABLE_PLUGIN_CACHE_ENV: '1',
      CI: '1',
      FORCE_COLOR: '0',
      VAULT_ADDR: engine.url,
      VAULT_TOKEN: rootToken,
      KEYWARD_CLOUD_EMULATOR: emulator.url,
      KEYWARD_CLOUD_CREDENTIALS: JSON.stringify(emulator.keyFile(DEPLOYER)),
      KEYWARD_SNAPSHOT_DIR: snapshotDir,
    };
    if (await hasTerraform()) {
      // A scratch project directory keeps this run's Terraform state apart from yours.
      writeFileSync(
        join(work, 'cdktf.json'),
        JSON.stringify({
          language: 'typescript',
          app: `node ${TSX} ${BASIC}`,
          projectId: 'keyward-start',
          sendCrashReports: 'false',
          terraformProviders: [],
          terraformModules: [],
        }),
      );
      // As in an app with keyward installed: the provider launcher finds node_modules/keyward.
      mkdirSync(join(work, 'node_modules'));
      symlinkSync(REPO, join(work, 'node_modules', 'keyward'), 'dir');
      await run(process.execPath, [join(REPO, 'node_modules', 'cdktf-cli', 'bundle', 'bin', 'cdktf'), 'deploy', '--auto-approve'], work, env);
      say('  cdktf deploy: terraform ran the keyward provider (installed offline from terraform.d/plugins, no registry)');
    } else {
      await run(
        process.execPath,
        [join(REPO, 'bin', 'keyward.js'), 'apply', '--app', `node ${TSX} ${BASIC}`, '--last-applied', join(work, 'last-applied.json'), '--auto-approve'],
        REPO,
        env,
      );
      say('  terraform is not installed: applied the same stack with `keyward apply --app` instead');
    }
    const roles = await call(engine.url, 'LIST', 'auth/cloud/roles', rootToken);
    const snaps = await call(engine.url, 'LIST', 'sys/storage/raft/snapshot-auto/config', rootToken);
    const keylessRoles = await call(engine.url, 'LIST', 'auth/keyless/roles', rootToken);
    say(`  auth/cloud roles: ${(roles.json?.data?.keys ?? []).join(', ')}`);
    say(`  auth/keyless roles: ${(keylessRoles.json?.data?.keys ?? []).join(', ')} (workload identity federation, configured without a key)`);
    say(`  snapshot configs: ${(snaps.json?.data?.keys ?? []).join(', ')}`);

    step(3, `Logging in as ${APP_ACCOUNT} with an emulator-minted JWT`);
    const jwt = emulator.mintServiceAccountJwt({ account: APP_ACCOUNT, audience: 'vault/app' });
    const login = await call(engine.url, 'POST', 'auth/cloud/login', undefined, { role: 'app', jwt });
    if (login.status !== 200) throw new Error(`login failed (${login.status}): ${JSON.stringify(login.json)}`);
    const auth = login.json.auth;
    const self = await call(engine.url, 'GET', 'auth/token/lookup-self', auth.client_token);
    say(`  POST auth/cloud/login -> token ${auth.client_token.slice(0, 8)}… (token values are not printed)`);
    say(`  policies ${JSON.stringify(auth.policies)}, ttl ${auth.lease_duration}s, renewable ${auth.renewable}`);
    say(`  lookup-self with the new token: ${self.status === 200 ? 'ok' : `failed (${self.status})`}, entity ${auth.entity_id ?? '-'}`);

    step(4, 'Logging in through the keyless mount: workload identity federation, no key anywhere');
    const klogin = await call(engine.url, 'POST', 'auth/keyless/login', undefined, {
      role: 'app',
      jwt: emulator.mintServiceAccountJwt({ account: APP_ACCOUNT, audience: 'vault/app' }),
    });
    if (klogin.status !== 200) throw new Error(`keyless login failed (${klogin.status}): ${JSON.stringify(klogin.json)}`);
    const stored = (await call(engine.url, 'GET', 'auth/keyless/config', rootToken)).json.data;
    say(`  auth/keyless/config: service_account_email ${stored.service_account_email}, private_key_id ${stored.private_key_id ?? '(none: no key stored)'}`);
    say(`  POST auth/keyless/login -> token ${klogin.json.auth.client_token.slice(0, 8)}…, policies ${JSON.stringify(klogin.json.auth.policies)}`);
    const exchanged = emulator.records.exchanges.filter((e) => e.ok).length;
    const impersonated = emulator.records.impersonations.filter((e) => e.ok).length;
    say(`  the emulator verified ${exchanged} plugin identity token(s) against ${issuer}/.well-known/keys and let ${impersonated} federated principal(s) impersonate ${DEPLOYER}`);

    step(5, 'Taking a snapshot of the whole store');
    const file = join(work, 'keyward.snap');
    const res = await request(`${engine.url}/v1/sys/storage/raft/snapshot`, { headers: { 'x-vault-token': rootToken } });
    if (res.statusCode !== 200) throw new Error(`snapshot failed (${res.statusCode}): ${await res.body.text()}`);
    await pipeline(res.body, createWriteStream(file));
    const size = statSync(file).size;
    say(`  GET sys/storage/raft/snapshot -> (${size} bytes)`);

    step(6, 'Done. Everything ran on 127.0.0.1 and has been stopped. To continue yourself:');
    say(`
  # every terminal, once: the checkout's own keyward on PATH (npx keyward would install and build a copy)
  export PATH="$(git rev-parse --show-toplevel)/tools/checkout-bin:$PATH"

  # terminal 1: the engine and the identity provider
  keyward server --dev --root-token root
  keyward cloud-emulator

  # terminal 2: deploy the example and review changes
  export VAULT_ADDR=http://127.0.0.1:8200 VAULT_TOKEN=root
  export KEYWARD_CLOUD_CREDENTIALS="$(keyward cloud-emulator key-file --account ${DEPLOYER})"
  cd examples/basic
  npx cdktf deploy --auto-approve          # or: keyward apply --app "npx tsx main.ts"
  npx cdktf diff                            # after editing main.ts: what would change (drift included)
  keyward plan --dir cdktf.out          # the same, without Terraform
  keyward cloud-emulator mint service-account --account ${APP_ACCOUNT} --audience vault/app   # a JWT for auth/cloud/login
  # keyless auth: the sample's workload identity pool trusts the engine on 127.0.0.1:8200 (docs/engine.md: "Keyless cloud auth")

  This run's work directory (its seal key, data, state and snapshot) has been removed.`);
  } finally {
    running.stop = [];
    await engine.close();
    await emulator.close();
    removeWork();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`npm start failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
