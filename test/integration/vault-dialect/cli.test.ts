// The keyward command against the Vault contract server: plan/apply/status/import/destroy with the
// dialect detected, --dialect and the manifest's server.dialect honoured, --show-server-names, and
// no secret value in anything printed.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contractCli } from './cli-session';
import { leakedSecrets, SECRETS, stack } from './stack';

const cli = contractCli(SECRETS);
const keyward = cli.keyward;
const dir = mkdtempSync(join(tmpdir(), 'keyward-vault-cli-'));
const manifestPath = join(dir, 'keyward.manifest.json');

beforeAll(() => writeFileSync(manifestPath, JSON.stringify(stack(join(dir, 'snaps')))));

test('plan, apply, status, import and destroy against Vault, in keyward names unless asked', async () => {
  const first = await keyward('plan', '--manifest', manifestPath, '--detailed-exitcode');
  expect(first.code).toBe(2);
  expect(first.out).toContain('+ cloudone_bucket = "backups"');
  expect(first.out).not.toMatch(/aws_|gce|google_gcs|azure_/);

  const server = await keyward('plan', '--manifest', manifestPath, '--show-server-names');
  expect(server.out).toContain('+ aws_s3_bucket = "backups"');
  expect(server.out).toContain('+ type = "gce"');
  expect(server.out).toContain('+ gce_alias = "instance_id"');
  expect(server.out).toContain('+ storage_type = "azure-blob"');

  expect((await keyward('apply', '--auto-approve', '--manifest', manifestPath)).code).toBe(0);
  expect((await keyward('plan', '--manifest', manifestPath, '--detailed-exitcode', '--dialect', 'vault')).code).toBe(0);
  expect(cli.vault.problems).toEqual([]);

  // The dialect flag is honoured: read as keyward's names, Vault's "gcp" mount is not ours.
  const wrong = await keyward('plan', '--manifest', manifestPath, '--dialect', 'keyward');
  expect(wrong.out).toContain('auth/cloud must be replaced');
  // So is the manifest's server block (detection would have said vault), and the flag beats it.
  const pinned = join(dir, 'pinned.manifest.json');
  const record = join(dir, 'keyward.manifest.last-applied.json');
  writeFileSync(pinned, JSON.stringify({ ...stack(join(dir, 'snaps')), server: { dialect: 'keyward' } }));
  expect((await keyward('plan', '--manifest', pinned, '--last-applied', record)).out).toContain('auth/cloud must be replaced');
  expect((await keyward('plan', '--manifest', pinned, '--last-applied', record, '--detailed-exitcode', '--dialect', 'vault')).code).toBe(0);

  const status = await keyward('status', '--json');
  expect(
    JSON.parse(status.out)
      .snapshots.map((r: { storage_type: string }) => r.storage_type)
      .sort(),
  ).toEqual(['cloudone-store', 'cloudthree-store', 'cloudtwo-store', 'local']);

  const mount = await keyward('import', '--mount', 'cloud');
  expect(mount.out).toContain('CloudAuthRole.vm(stack, "cloud-batch"');
  expect(mount.out).toContain('vmAlias: "instance_id"');
  expect(mount.out).toContain("new KeywardServer(stack, 'server', { dialect: 'vault' });");
  const snaps = await keyward('import', '--snapshots');
  expect(snaps.out).toContain('SnapshotStorage.cloudOne(');
  expect(snaps.out).toContain('SnapshotStorage.cloudThree(');
  expect(`${mount.out}${snaps.out}`).not.toMatch(/aws_|gce|google_gcs|azure_/);

  expect((await keyward('destroy', '--auto-approve', '--manifest', manifestPath)).code).toBe(0);
  expect(cli.vault.mounts.has('cloud')).toBe(false);
  expect(cli.vault.snapshots.size).toBe(0);
  expect(cli.vault.problems).toEqual([]);
  expect(leakedSecrets(cli.printed)).toEqual([]);
}, 60_000);
