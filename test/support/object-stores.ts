// Starts and stops the object-store emulators the snapshot tests and benches use, all on
// 127.0.0.1: s3rver (S3), azurite-blob (Azure Blob, a child process) and our GCS emulator.
// Each returns the snapshot config fields that point a target at it.

import { BlobServiceClient, StorageSharedKeyCredential } from '@azure/storage-blob';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startGcsEmulator, type GcsEmulator } from './gcs-emulator/server';

export interface RunningStore {
  /** Config fields (storage_type excluded) for a target on this emulator, minus path_prefix. */
  fields: Record<string, string | boolean>;
  /** The process serving the store when it is not this one (azurite-blob). */
  pid?: number;
  close(): Promise<void>;
}

export type StoreKind = 's3' | 'gcs' | 'azure';

/** A store in a child process, so a test can SIGSTOP it (`pid` is the process that serves). */
export async function startStoreProcess(kind: StoreKind): Promise<RunningStore & { pid: number }> {
  const child = spawn(process.execPath, ['-r', 'tsx/cjs', resolve(__dirname, 'store-process.ts'), kind], { stdio: ['ignore', 'pipe', 'inherit'] });
  const first = await new Promise<{ fields: Record<string, string | boolean>; pid: number }>((ok, fail) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) ok(JSON.parse(out.slice(0, nl)) as { fields: Record<string, string | boolean>; pid: number });
    });
    child.once('exit', (code) => fail(new Error(`store process exited with ${code}`)));
  });
  child.stdout!.resume();
  return {
    ...first,
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      process.kill(first.pid, 'SIGCONT');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export const AZURITE_ACCOUNT = 'devstoreaccount1';
// Azurite's published well-known development key (not a secret).
export const AZURITE_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

export async function startS3(bucket = 'snapshots'): Promise<RunningStore> {
  // s3rver is CommonJS without types.
  const S3rver = require('s3rver') as new (o: Record<string, unknown>) => { run(): Promise<AddressInfo>; close(): Promise<void> };
  const dir = await mkdtemp(join(tmpdir(), 'kw-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: [{ name: bucket, configs: [] }] });
  const addr = await server.run();
  return {
    fields: {
      cloudone_bucket: bucket,
      cloudone_region: 'us-east-1',
      cloudone_access_key_id: 'S3RVER',
      cloudone_secret_access_key: 'S3RVER',
      cloudone_endpoint: `127.0.0.1:${addr.port}`,
      cloudone_disable_tls: true,
      cloudone_force_path_style: true,
    },
    close: async () => {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export async function startGcs(bucket = 'snapshots'): Promise<RunningStore & { url: string; emulator: GcsEmulator }> {
  const dir = await mkdtemp(join(tmpdir(), 'kw-gcs-'));
  const emu = await startGcsEmulator({ dir });
  emu.store.createBucket(bucket);
  return {
    url: emu.url,
    emulator: emu,
    fields: { cloudtwo_bucket: bucket, cloudtwo_endpoint: emu.url, cloudtwo_disable_tls: true },
    close: async () => {
      await emu.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function waitForListen(child: ChildProcess): Promise<number> {
  return new Promise((resolvePort, reject) => {
    let out = '';
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = /successfully listens on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolvePort(Number(m[1]));
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`azurite-blob exited with ${code} before listening: ${out}`)));
    child.once('error', reject);
  });
}

export async function startAzurite(container = 'snapshots'): Promise<RunningStore> {
  const dir = await mkdtemp(join(tmpdir(), 'kw-azurite-'));
  const bin = resolve(__dirname, '../../node_modules/.bin/azurite-blob');
  const child = spawn(bin, ['--blobHost', '127.0.0.1', '--blobPort', '0', '--location', dir, '--disableTelemetry', '--skipApiVersionCheck', '--loose', '--silent'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr?.resume();
  let port: number;
  try {
    port = await waitForListen(child);
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
  const endpoint = `http://127.0.0.1:${port}/${AZURITE_ACCOUNT}`;
  const pid = child.pid;
  const service = new BlobServiceClient(endpoint, new StorageSharedKeyCredential(AZURITE_ACCOUNT, AZURITE_KEY));
  await service.getContainerClient(container).createIfNotExists();
  return {
    fields: {
      cloudthree_container_name: container,
      cloudthree_account_name: AZURITE_ACCOUNT,
      cloudthree_account_key: AZURITE_KEY,
      cloudthree_endpoint: endpoint,
    },
    pid,
    close: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * True when `bytes` is a whole snapshot archive: gzip intact and exactly the four entries, each
 * with all its bytes (what "no partial object under a final name" is checked with).
 */
export async function isCompleteArchive(bytes: Buffer): Promise<boolean> {
  const tar = await import('tar-stream');
  const { gunzipSync } = await import('node:zlib');
  let raw: Buffer;
  try {
    raw = gunzipSync(bytes);
  } catch {
    return false;
  }
  const extract = tar.extract();
  const names: string[] = [];
  const done = (async () => {
    for await (const e of extract) {
      names.push(e.header.name);
      let n = 0;
      for await (const c of e as AsyncIterable<Buffer>) n += c.length;
      if (n !== e.header.size) return false;
    }
    return true;
  })();
  extract.end(raw);
  try {
    return (await done) && names.join(',') === 'meta.json,state.bin,SHA256SUMS,SHA256SUMS.sealed';
  } catch {
    return false;
  }
}
