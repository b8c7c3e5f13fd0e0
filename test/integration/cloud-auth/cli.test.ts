// `keyward cloud-emulator` as a process: it serves a description, and `mint` prints tokens from it
// that the engine accepts.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { api, startTestEngine } from '../../support/engine';
import { buildProgram } from '../../../src/cli/main';
import { FIXTURE_KEY_DIR, SA, audience, cloudDescription, emulatorEndpoints, login } from '../../support/cloud-fixture';

const BIN = join(__dirname, '..', '..', '..', 'bin', 'keyward.js');

describe('keyward cloud-emulator', () => {
  let child: ChildProcess;
  let url: string;
  let engine: Awaited<ReturnType<typeof startTestEngine>>;
  // The subcommands run in-process through the real commander program (one process start less each).
  const cli = async (...args: string[]) => {
    let out = '';
    const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out += chunk.toString();
      return true;
    });
    try {
      await buildProgram()
        .exitOverride()
        .parseAsync(['node', 'keyward', 'cloud-emulator', ...args, '--emulator', url]);
    } finally {
      spy.mockRestore();
    }
    return out.trim();
  };

  beforeAll(async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'keyward-emu-')), 'world.json');
    writeFileSync(file, JSON.stringify(cloudDescription));
    child = spawn(process.execPath, [BIN, 'cloud-emulator', '--description', file, '--listen', '127.0.0.1:0', '--key-dir', FIXTURE_KEY_DIR], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`cloud-emulator exited with ${code}: ${out}`)));
    });
    engine = await startTestEngine();
  });
  afterAll(async () => {
    child?.kill('SIGTERM');
    await engine?.close();
  });

  it('configures the engine from key-file output and logs in with minted tokens', async () => {
    // key-file is the same admin endpoint the `key-file` subcommand prints (one CLI start less).
    const keyFile = await (await request(`${url}/_emulator/key-file/${encodeURIComponent(SA.keyward.email)}`)).body.text();
    expect(JSON.parse(keyFile).client_email).toBe(SA.keyward.email);
    await api(engine, 'POST', 'sys/auth/cloud', { body: { type: 'cloud' } });
    await api(engine, 'POST', 'auth/cloud/config', { body: { credentials: keyFile, custom_endpoint: emulatorEndpoints({ url }) } });
    await api(engine, 'POST', 'auth/cloud/role/app', { body: { type: 'iam', bound_service_accounts: SA.app.email } });
    await api(engine, 'POST', 'auth/cloud/role/web', { body: { type: 'vm', bound_labels: 'team:web' } });
    const saJwt = await cli('mint', 'service-account', '--account', SA.app.email, '--audience', audience('app'), '--ttl', '600');
    expect((await login(engine, 'app', saJwt)).status).toBe(200);
    const vmJwt = await cli('mint', 'instance', '--instance', 'web-1', '--audience', audience('web'));
    expect((await login(engine, 'web', vmJwt)).status).toBe(200);
  });

  it('fails with a clear message for an unknown identity', async () => {
    await expect(cli('mint', 'instance', '--instance', 'ghost', '--audience', 'a')).rejects.toThrow(/unknown instance "ghost"/);
  });
});
