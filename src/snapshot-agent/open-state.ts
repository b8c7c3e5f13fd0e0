// --state LOCATION -> the store:
//   a directory path or file:// URL                          (O_EXCL-style link(2) for leases)
//   s3://BUCKET[/PREFIX][?region=R&endpoint=E&force_path_style=true&disable_tls=true]
//   gs://BUCKET[/PREFIX][?endpoint=E&disable_tls=true]
//   azblob://ACCOUNT/CONTAINER[/PREFIX][?endpoint=E]
// Credentials never appear in the location: S3 and GCS use their SDK's ambient chain
// (AWS_ACCESS_KEY_ID…, GOOGLE_APPLICATION_CREDENTIALS…), Azure the AZURE_STORAGE_KEY variable.

import { fileURLToPath } from 'node:url';
import { AzureTarget } from '../engine/snapshot/targets/azure';
import { GcsTarget } from '../engine/snapshot/targets/gcs';
import { S3Target } from '../engine/snapshot/targets/s3';
import { DirectoryState } from './dir-state';
import { ObjectState } from './object-state';
import type { StateStore } from './state-store';

const truthy = (v: string | null) => v !== null && ['1', 'true', 'yes'].includes(v.toLowerCase());

export async function openState(location: string, env: NodeJS.ProcessEnv = process.env): Promise<StateStore> {
  if (location.trim() === '') throw new Error('--state must name a directory or an object-store prefix');
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(location)?.[1]?.toLowerCase();
  if (scheme === undefined) return new DirectoryState(location).open();
  if (scheme === 'file') return new DirectoryState(fileURLToPath(location)).open();
  const u = new URL(location);
  const q = u.searchParams;
  const path = decodeURIComponent(u.pathname).replace(/^\/+|\/+$/g, '');
  const shown = `${u.protocol}//${u.host}${u.pathname}`;
  if (scheme === 's3') {
    if (!u.hostname) throw new Error('--state s3://BUCKET/PREFIX needs a bucket');
    const target = new S3Target({
      bucket: u.hostname,
      region: q.get('region') ?? env.AWS_REGION ?? 'us-east-1',
      pathPrefix: path,
      endpoint: q.get('endpoint') ?? undefined,
      forcePathStyle: truthy(q.get('force_path_style')),
      disableTls: truthy(q.get('disable_tls')),
    });
    return new ObjectState(shown, target).open();
  }
  if (scheme === 'gs') {
    if (!u.hostname) throw new Error('--state gs://BUCKET/PREFIX needs a bucket');
    const target = new GcsTarget({ bucket: u.hostname, pathPrefix: path, endpoint: q.get('endpoint') ?? undefined, disableTls: truthy(q.get('disable_tls')) });
    return new ObjectState(shown, target).open();
  }
  if (scheme === 'azblob') {
    const [container, ...rest] = path.split('/');
    if (!u.hostname || !container) throw new Error('--state azblob://ACCOUNT/CONTAINER/PREFIX needs an account and a container');
    const key = env.AZURE_STORAGE_KEY;
    if (!key) throw new Error('--state azblob://…: set AZURE_STORAGE_KEY to the storage account key');
    const target = new AzureTarget({ container, accountName: u.hostname, credential: { accountKey: key }, pathPrefix: rest.join('/'), endpoint: q.get('endpoint') ?? undefined });
    return new ObjectState(shown, target).open();
  }
  throw new Error(`--state: unknown scheme ${scheme}:// (use a directory, s3://, gs:// or azblob://)`);
}
