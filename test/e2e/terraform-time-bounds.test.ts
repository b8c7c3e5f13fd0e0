// A stopped server does not hang terraform: with the engine frozen by SIGSTOP, `terraform plan`
// ends within the documented bound (3 attempts of 10 s) with an error naming the method, the URL
// and what was waited for; VAULT_CLIENT_TIMEOUT / VAULT_MAX_RETRIES shorten it; Ctrl-C ends it at
// once (StopProvider cancels the requests in flight); a terraform killed mid-plan leaves no
// provider running; an unset VAULT_TOKEN and a wrong address are each one clear diagnostic.
// All through the real terraform CLI (offline, the launcher in terraform.d/plugins).

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { writeLauncher } from '../../constructs/launcher';
import { startEngineProcess, type EngineProcess } from '../support/engine-process';

const REPO = resolve(__dirname, '../..');
const TOKEN = 'time-bounds-root-token';

interface Run {
  code: number | null;
  out: string;
  ms: number;
}

describe('terraform against a server that does not answer', () => {
  let engine: EngineProcess;
  let dir: string;
  let dataDir: string;
  const env = (extra: Record<string, string | undefined> = {}) => {
    const e: Record<string, string | undefined> = {
      ...process.env,
      CHECKPOINT_DISABLE: '1',
      TF_IN_AUTOMATION: '1',
      TF_CLI_CONFIG_FILE: join(dir, 'empty.tfrc'),
      VAULT_ADDR: '',
      VAULT_TOKEN: TOKEN,
      KEYWARD_DIALECT: '',
      VAULT_CLIENT_TIMEOUT: '',
      VAULT_MAX_RETRIES: '',
      TF_LOG: '',
      ...extra,
    };
    for (const k of Object.keys(e)) if (e[k] === undefined) delete e[k];
    return e as NodeJS.ProcessEnv;
  };
  /** Runs terraform; `onOutput` sees the output so far (to send a signal at the right moment). */
  const tf = (args: string[], extra: Record<string, string | undefined> = {}, onOutput?: (out: string, kill: (s: NodeJS.Signals) => void) => void): Promise<Run> =>
    new Promise((ok, fail) => {
      const started = Date.now();
      const child = spawn('terraform', [...args, '-no-color'], { cwd: dir, env: env(extra), stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      const more = (d: Buffer) => {
        out += d.toString('utf8');
        onOutput?.(out, (s) => child.kill(s));
      };
      child.stdout.on('data', more);
      child.stderr.on('data', more);
      child.on('error', fail);
      child.on('close', (code) => ok({ code, out, ms: Date.now() - started }));
    });
  const config = (provider: Record<string, unknown>) =>
    writeFileSync(
      join(dir, 'main.tf.json'),
      JSON.stringify({
        terraform: { required_providers: { keyward: { source: 'keyward/keyward' } } },
        provider: { keyward: { address: engine.url, fingerprint_salt: 'time-bounds-salt-0123456789', ...provider } },
        resource: {
          keyward_cloud_auth_backend: { cloud: { path: 'cloud', description: 'time bounds' } },
          keyward_snapshot_auto_config: {
            hourly: { name: 'hourly', storage_type: 'local', interval: '1h', retain: 2, path_prefix: join(dataDir, 'snaps'), local_max_space: 10_000_000 },
          },
        },
      }),
    );
  /** keyward provider processes started in the test directory (terraform runs them by a relative path). */
  const providersRunning = () =>
    readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          return readlinkSync(`/proc/${p}/cwd`) === dir && readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('terraform-provider-keyward');
        } catch {
          return false;
        }
      });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kw-tf-bounds-'));
    dataDir = mkdtempSync(join(tmpdir(), 'kw-tf-bounds-data-'));
    engine = await startEngineProcess({ dataDir: join(dataDir, 'engine'), rootToken: TOKEN });
    writeLauncher(join(dir, 'terraform.d', 'plugins'));
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(REPO, join(dir, 'node_modules', 'keyward'), 'dir');
    writeFileSync(join(dir, 'empty.tfrc'), '');
    config({});
    const init = await tf(['init', '-input=false']);
    expect(init.code).toBe(0);
    const apply = await tf(['apply', '-input=false', '-auto-approve']);
    expect({ code: apply.code, out: apply.code === 0 ? '' : apply.out }).toEqual({ code: 0, out: '' });
  }, 300_000);
  afterAll(() => {
    if (engine) {
      process.kill(engine.pid, 'SIGCONT');
      engine.stop();
    }
    for (const p of providersRunning()) process.kill(Number(p), 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });
  afterEach(() => {
    process.kill(engine.pid, 'SIGCONT');
    config({});
  });

  it('a plan against a stopped server ends within the documented bound, naming method, URL and the wait', async () => {
    process.kill(engine.pid, 'SIGSTOP');
    const r = await tf(['plan', '-input=false']);
    const out = r.out.replace(/\s+/g, ' ');
    expect(r.code).toBe(1);
    // 3 attempts of 10 s (+ at most 1.5 s of backoff), plus terraform's and the provider's start-up.
    expect(r.ms).toBeLessThan(50_000);
    expect(r.ms).toBeGreaterThanOrEqual(30_000);
    expect(out).toMatch(new RegExp(`GET ${engine.url}/v1/[a-z/]+(\\?list=true)?: no response headers within 10s \\(attempt 3 of 3\\)`));
    expect(out).not.toContain(TOKEN);
  }, 120_000);

  it('VAULT_CLIENT_TIMEOUT / VAULT_MAX_RETRIES and the provider block shorten the wait', async () => {
    process.kill(engine.pid, 'SIGSTOP');
    const viaEnv = await tf(['plan', '-input=false'], { VAULT_CLIENT_TIMEOUT: '2s', VAULT_MAX_RETRIES: '0' });
    expect(viaEnv.code).toBe(1);
    expect(viaEnv.out.replace(/\s+/g, ' ')).toMatch(new RegExp(`GET ${engine.url}/v1/\\S+: no response headers within 2s`));
    expect(viaEnv.ms).toBeLessThan(25_000);
    config({ request_timeout: '3s', max_retries: 1 });
    const viaBlock = await tf(['plan', '-input=false'], { VAULT_CLIENT_TIMEOUT: '60s' });
    expect(viaBlock.code).toBe(1);
    expect(viaBlock.out.replace(/\s+/g, ' ')).toMatch(/no response headers within 3s \(attempt 2 of 2\)/);
    expect(viaBlock.ms).toBeLessThan(30_000);
  }, 120_000);

  it('Ctrl-C (StopProvider) ends a plan waiting on a stopped server at once', async () => {
    config({ request_timeout: '120s' });
    process.kill(engine.pid, 'SIGSTOP');
    let interruptedAt = 0;
    const r = await tf(['plan', '-input=false'], {}, (out, kill) => {
      if (interruptedAt === 0 && out.includes('Refreshing state')) {
        interruptedAt = -1;
        // Let the refresh requests reach the (stopped) server first.
        setTimeout(() => {
          interruptedAt = Date.now();
          kill('SIGINT');
        }, 3000);
      }
    });
    expect(interruptedAt).toBeGreaterThan(0);
    const afterInterrupt = Date.now() - interruptedAt;
    expect(r.code).not.toBe(0);
    expect(afterInterrupt).toBeLessThan(10_000);
    expect(r.out.replace(/\s+/g, ' ')).toContain('cancelled (Terraform asked the provider to stop)');
  }, 120_000);

  it('a terraform killed mid-plan (as SIGPIPE kills `terraform plan | head`) leaves no provider running', async () => {
    config({ request_timeout: '120s' });
    process.kill(engine.pid, 'SIGSTOP');
    let seen = false;
    let killed = false;
    await tf(['plan', '-input=false'], {}, (out, kill) => {
      if (!seen && out.includes('Refreshing state')) {
        seen = true;
        // The provider is now waiting on the stopped server; terraform dies without a Shutdown RPC.
        setTimeout(() => {
          expect(providersRunning().length).toBeGreaterThan(0);
          killed = true;
          kill('SIGKILL');
        }, 2000);
      }
    });
    expect(killed).toBe(true);
    const deadline = Date.now() + 15_000;
    while (providersRunning().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(providersRunning()).toEqual([]);
  }, 120_000);

  it('VAULT_TOKEN unset and a wrong address: one diagnostic each that says what to do', async () => {
    const noToken = await tf(['plan', '-input=false'], { VAULT_TOKEN: undefined, HOME: dir });
    expect(noToken.code).toBe(1);
    const a = noToken.out.replace(/\s+/g, ' ');
    expect(a).toContain('Error: VAULT_TOKEN is not set');
    expect(a).toContain(`Set VAULT_TOKEN to a token for ${engine.url}`);
    expect(a).not.toContain('403');
    config({ address: 'http://127.0.0.1:9' });
    const wrong = await tf(['plan', '-input=false']);
    config({});
    expect(wrong.code).toBe(1);
    const b = wrong.out.replace(/\s+/g, ' ');
    expect(b).toMatch(
      /GET http:\/\/127\.0\.0\.1:9\/v1\/\S+: no response from the server \(ECONNREFUSED\) \(attempt 3 of 3\): check that the server is running at http:\/\/127\.0\.0\.1:9/,
    );
  }, 120_000);
});
