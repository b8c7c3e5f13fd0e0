// The provider launcher: the small executable Terraform installs from a local mirror
// (terraform.d/plugins/registry.terraform.io/keyward/keyward/<version>/<os>_<arch>/). It finds the
// keyward package at run time and runs its provider, so its bytes are the same on every machine
// and the hashes in .terraform.lock.hcl agree between a laptop and CI. No cdktf import here: the
// CLI (`keyward terraform install`) writes the same file.

import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const PROVIDER_SOURCE = 'keyward/keyward';
export const PROVIDER_HOSTNAME = 'registry.terraform.io';
/** OpenTofu resolves `keyward/keyward` to its own registry's hostname. */
export const OPENTOFU_HOSTNAME = 'registry.opentofu.org';
const PROVIDER_BIN = 'bin/terraform-provider-keyward.js';

/**
 * The launcher script. It looks for the keyward package (node_modules/keyward, or a directory whose
 * package.json is keyward's own: this repository) from Terraform's working directory upward, then
 * beside the `keyward` command on PATH (a global install), and runs the provider in-process.
 */
export const LAUNCHER_SCRIPT = `#!/usr/bin/env node
// keyward's Terraform provider launcher, written by keyward (identical on every machine: no paths).
// Finds the keyward package from the working directory upward, or beside \`keyward\` on PATH, and
// runs its provider (${PROVIDER_BIN}).
'use strict';
const fs = require('fs');
const path = require('path');
const BIN = ${JSON.stringify(PROVIDER_BIN)};
function isKeyward(dir) {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).name === 'keyward' && fs.existsSync(path.join(dir, BIN));
  } catch (e) {
    return false;
  }
}
function fromWorkingDirectory() {
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    for (const c of [path.join(dir, 'node_modules', 'keyward'), dir]) if (isKeyward(c)) return c;
    if (path.dirname(dir) === dir) return undefined;
  }
}
function fromPath() {
  for (const d of (process.env.PATH || '').split(path.delimiter)) {
    try {
      const real = fs.realpathSync(path.join(d, 'keyward'));
      const pkg = path.dirname(path.dirname(real));
      if (isKeyward(pkg)) return pkg;
    } catch (e) {
      // not in this PATH entry
    }
  }
  return undefined;
}
const pkg = fromWorkingDirectory() || fromPath();
if (!pkg) {
  const why = "keyward's Terraform provider cannot start: the keyward package is not installed (looked for node_modules/keyward from " +
    process.cwd() + ' upward, and beside the keyward command on PATH). keyward is not on the public npm registry (npm install keyward answers 404): ' +
    'in a keyward checkout run npm install && npm pack, then in this project run npm install <checkout>/keyward-<version>.tgz (or install it globally), then run terraform again.';
  process.stderr.write('terraform-provider-keyward: ' + why + '\\n');
  if (!process.env.TF_PLUGIN_MAGIC_COOKIE) process.exit(1);
  // Started by Terraform: it shows a plugin's stderr only in debug logs, but it quotes the first
  // line the plugin prints instead of its handshake. Stay up until Terraform has read it.
  process.stdout.write(why + '\\n', () => setTimeout(() => process.exit(1), 5000));
  return;
}
require(path.join(pkg, BIN));
`;

/** Terraform's platform name for this machine, e.g. linux_amd64, darwin_arm64. */
export function terraformPlatform(platform: string = process.platform, arch: string = process.arch): string {
  const os = platform === 'win32' ? 'windows' : platform;
  const cpu = ({ x64: 'amd64', arm64: 'arm64', ia32: '386', arm: 'arm' } as Record<string, string>)[arch] ?? arch;
  return `${os}_${cpu}`;
}

/** keyward's own package version (the provider version), from the package.json above this file. */
export function packageVersion(): string {
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) {
    const p = join(dir, 'package.json');
    if (!existsSync(p)) continue;
    const j = JSON.parse(readFileSync(p, 'utf8')) as { name?: string; version?: string };
    if (j.name === 'keyward' && j.version) return j.version;
  }
  throw new Error(`cannot find keyward's package.json above ${__dirname}`);
}

/** Path of the launcher inside a plugin directory (a local mirror in Terraform's unpacked layout). */
export function launcherPath(pluginDir: string, version: string = packageVersion(), platform: string = terraformPlatform(), hostname: string = PROVIDER_HOSTNAME): string {
  return join(pluginDir, hostname, PROVIDER_SOURCE, version, platform, `terraform-provider-keyward_v${version}`);
}

/** Writes the launcher (mode 0755) under pluginDir (for one registry hostname); returns its path. Rewrites only when the bytes differ. */
export function writeLauncher(pluginDir: string, version?: string, platform?: string, hostname?: string): string {
  const file = launcherPath(pluginDir, version, platform, hostname);
  mkdirSync(dirname(file), { recursive: true });
  if (!existsSync(file) || readFileSync(file, 'utf8') !== LAUNCHER_SCRIPT) writeFileSync(file, LAUNCHER_SCRIPT, { mode: 0o755 });
  chmodSync(file, 0o755);
  return file;
}

/**
 * Terraform's "h1:" package hash of the launcher's directory (Go's dirhash.Hash1: the SHA-256 of
 * the lines "<sha256 hex>  <file name>\n", base64). Stable because the launcher's bytes are.
 */
export function launcherHash(version: string = packageVersion()): string {
  const fileHash = createHash('sha256').update(LAUNCHER_SCRIPT, 'utf8').digest('hex');
  const summary = `${fileHash}  terraform-provider-keyward_v${version}\n`;
  return `h1:${createHash('sha256').update(summary, 'utf8').digest('base64')}`;
}

const LOCK_FILE = '.terraform.lock.hcl';

/** The lock-file entry for the launcher; every platform's launcher has the same bytes, so one hash serves all. */
export function lockEntry(version: string = packageVersion()): string {
  return [
    `provider "${PROVIDER_HOSTNAME}/${PROVIDER_SOURCE}" {`,
    `  version     = "${version}"`,
    `  constraints = "${version}"`,
    '  hashes = [',
    `    "${launcherHash(version)}",`,
    '  ]',
    '}',
    '',
  ].join('\n');
}

/**
 * Puts the launcher's entry into the stack's .terraform.lock.hcl (other providers' entries kept).
 * Without it, cdktf's first `init` runs `terraform providers lock`, which asks the registry for
 * keyward/keyward and fails offline; with it, `terraform init` checks the launcher against the hash.
 */
export function writeLockEntry(stackDir: string, version: string = packageVersion()): void {
  const file = join(stackDir, LOCK_FILE);
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '# This file is maintained automatically by "terraform init".\n# Manual edits may be lost in future updates.\n\n';
  const block = new RegExp(`provider "${PROVIDER_HOSTNAME}/${PROVIDER_SOURCE}" \\{[^}]*\\}\\n?`);
  const entry = lockEntry(version);
  if (current.includes(entry)) return;
  const rest = current.replace(block, '');
  writeFileSync(file, `${rest.endsWith('\n\n') || rest === '' ? rest : `${rest.replace(/\n*$/, '\n\n')}`}${entry}`);
}
