// `keyward terraform install [--dir D]`: writes the provider launcher into a plugin directory for
// plain HCL and OpenTofu users (cdktf/cdktn stacks get it at synth), under both registry hostnames
// (`keyward/keyward` means registry.terraform.io to Terraform, registry.opentofu.org to OpenTofu).
// The default is the user's implied local mirror, ~/.terraform.d/plugins, which `terraform init`
// searches with no config.

import { Command } from 'commander';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { OPENTOFU_HOSTNAME, PROVIDER_HOSTNAME, PROVIDER_SOURCE, packageVersion, terraformPlatform, writeLauncher } from '../../../constructs/launcher';

interface InstallFlags {
  dir?: string;
  platform?: string;
}

/** Installs the launcher for Terraform and for OpenTofu; returns the files written (Terraform's first). */
export function runTerraformInstall(flags: InstallFlags, write: (s: string) => void = (s) => process.stdout.write(s)): string[] {
  const dir = resolve(flags.dir ?? join(homedir(), '.terraform.d', 'plugins'));
  const platform = flags.platform ?? terraformPlatform();
  if (!/^[a-z0-9]+_[a-z0-9]+$/.test(platform)) throw new Error(`--platform must look like linux_amd64 or darwin_arm64, got ${JSON.stringify(platform)}`);
  const version = packageVersion();
  const files = [PROVIDER_HOSTNAME, OPENTOFU_HOSTNAME].map((host) => writeLauncher(dir, version, platform, host));
  write(
    `Installed ${PROVIDER_SOURCE} ${version} (${platform}) at ${files[0]} (Terraform)\n` +
      `and ${files[1]} (OpenTofu; untested)\n` +
      `Use it with:\n  terraform { required_providers { keyward = { source = "${PROVIDER_SOURCE}", version = "${version}" } } }\n` +
      'The launcher runs the keyward package found from the working directory upward (node_modules/keyward) or on PATH.\n',
  );
  return files;
}

export function registerTerraformInstall(program: Command): void {
  const tf = program.command('terraform').description('Terraform provider helpers');
  tf.command('install')
    .description('Install the keyward Terraform provider launcher into a plugin directory (for HCL and OpenTofu users)')
    .option('--dir <dir>', 'plugin directory (a local mirror)', join('~', '.terraform.d', 'plugins'))
    .option('--platform <os_arch>', 'Terraform platform directory name (default: this machine)')
    .action((flags: InstallFlags) => {
      runTerraformInstall({ ...flags, dir: flags.dir?.startsWith('~') ? join(homedir(), flags.dir.slice(1)) : flags.dir });
    });
}
