// `keyward cloud-emulator`: serve an emulated cloud identity provider (IAM, Compute, Resource
// Manager, key documents, OAuth2 token) from a JSON description; `mint` and `key-file` ask a
// running emulator for a signed service-account JWT, an instance identity token or a key file.

import { readFileSync } from 'node:fs';
import type { Command } from 'commander';

const DEFAULT_URL = process.env.KEYWARD_CLOUD_EMULATOR ?? 'http://127.0.0.1:8290';

function parseListen(addr: string): { host: string; port: number } {
  const m = /^(.*):(\d+)$/.exec(addr);
  if (!m) throw new Error(`--listen must be host:port, got ${JSON.stringify(addr)}`);
  return { host: m[1].replace(/^\[|\]$/g, '') || '127.0.0.1', port: Number(m[2]) };
}

async function callEmulator(base: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
  // Loaded here, not at the top: every `keyward` run imports this file to register the command.
  const { request } = require('undici') as typeof import('undici');
  const res = await request(`${base.replace(/\/+$/, '')}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) {
    let msg = text;
    try {
      msg = (JSON.parse(text) as { error: { message: string } }).error.message;
    } catch {
      /* keep the raw text */
    }
    throw new Error(`cloud emulator at ${base}: ${msg}`);
  }
  return JSON.parse(text);
}

export function registerCloudEmulator(program: Command): void {
  const cmd = program
    .command('cloud-emulator')
    .description('Serve an emulated cloud identity provider for local runs and tests')
    .option('--description <file>', 'JSON description of orgs, folders, projects, service accounts, instances, instance groups (default: a sample world)')
    .option('--listen <addr>', 'listen address host:port', '127.0.0.1:8290')
    .option('--metadata-account <email>', 'service account the emulated metadata server hands tokens for')
    .option('--metadata-instance <name>', 'instance whose identity tokens the emulated metadata server mints')
    .option('--no-auth', 'do not require bearer tokens on IAM, Compute and Resource Manager calls')
    .option('--key-dir <dir>', 'keep generated keys here so key files and identities survive restarts')
    .action(async (flags: { description?: string; listen: string; metadataAccount?: string; metadataInstance?: string; auth: boolean; keyDir?: string }) => {
      const { startCloudEmulator } = require('../../cloud-emulator') as typeof import('../../cloud-emulator');
      const { sampleDescription } = require('../../cloud-emulator/sample') as typeof import('../../cloud-emulator/sample');
      const description = flags.description ? JSON.parse(readFileSync(flags.description, 'utf8')) : sampleDescription;
      const { host, port } = parseListen(flags.listen);
      const emu = await startCloudEmulator({
        description,
        host,
        port,
        requireAuth: flags.auth,
        metadataServiceAccount: flags.metadataAccount,
        metadataInstance: flags.metadataInstance,
        keyDir: flags.keyDir,
      });
      const d = emu.description;
      process.stdout.write(
        [
          `keyward cloud emulator listening on ${emu.url}`,
          `  ${d.projects.length} projects, ${d.serviceAccounts.length} service accounts, ${d.instances.length} instances, ${d.instanceGroups.length} instance groups`,
          '',
          'Configure the cloud auth method with:',
          `    custom_endpoint = { api = "${emu.url}", iam = "${emu.url}", crm = "${emu.url}", compute = "${emu.url}" }`,
          `    credentials     = $(keyward cloud-emulator key-file --emulator ${emu.url} --account <email>)`,
          '',
          ...(['127.0.0.1', 'localhost', '::1'].includes(host) ? [] : ['WARNING: not bound to loopback; anyone who can reach this port can fetch key files and mint tokens.', '']),
        ].join('\n'),
      );
      const stop = () => void emu.close().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });

  cmd
    .command('key-file')
    .description('Print a service-account key file (JSON) from a running emulator')
    .requiredOption('--account <email>', 'service account email or unique id')
    .option('--key <n>', 'index of the user-managed key', '0')
    .option('--emulator <url>', 'emulator URL (env KEYWARD_CLOUD_EMULATOR)', DEFAULT_URL)
    .action(async (o: { account: string; key: string; emulator: string }) => {
      const file = await callEmulator(o.emulator, 'GET', `/_emulator/key-file/${encodeURIComponent(o.account)}?key=${Number(o.key)}`);
      process.stdout.write(JSON.stringify(file, null, 2) + '\n');
    });

  const mint = cmd.command('mint').description('Print a signed token for a described identity');
  mint
    .command('service-account')
    .description('A JWT for a service account (self-signed with its key, or provider-signed)')
    .requiredOption('--account <email>', 'service account email or unique id')
    .requiredOption('--audience <aud>', 'aud claim, e.g. http://vault/<role>')
    .option('--ttl <seconds>', 'lifetime in seconds', '900')
    .option('--provider-signed', 'sign with the provider-managed key, as signJwt does')
    .option('--emulator <url>', 'emulator URL (env KEYWARD_CLOUD_EMULATOR)', DEFAULT_URL)
    .action(async (o: { account: string; audience: string; ttl: string; providerSigned?: boolean; emulator: string }) => {
      const ttl = Number(o.ttl);
      if (!Number.isInteger(ttl) || ttl <= 0) throw new Error('--ttl must be a positive number of seconds');
      const r = (await callEmulator(o.emulator, 'POST', '/_emulator/mint/service-account', {
        account: o.account,
        audience: o.audience,
        ttl,
        providerSigned: !!o.providerSigned,
      })) as { jwt: string };
      process.stdout.write(r.jwt + '\n');
    });
  mint
    .command('instance')
    .description('An instance identity token (format=full) for a described instance')
    .requiredOption('--instance <name>', 'instance name')
    .requiredOption('--audience <aud>', 'aud claim, e.g. http://vault/<role>')
    .option('--project <id>', 'project of the instance when names repeat')
    .option('--emulator <url>', 'emulator URL (env KEYWARD_CLOUD_EMULATOR)', DEFAULT_URL)
    .action(async (o: { instance: string; audience: string; project?: string; emulator: string }) => {
      const r = (await callEmulator(o.emulator, 'POST', '/_emulator/mint/instance', { instance: o.instance, audience: o.audience, project: o.project })) as { jwt: string };
      process.stdout.write(r.jwt + '\n');
    });
}
