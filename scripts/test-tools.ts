// Tools the e2e tests drive that keyward does not depend on: the CDK Terrain CLI (cdktn-cli needs
// Node >= 22, keyward runs on Node 20) and a Node 22 binary, both from the npm registry (the Node
// binary ships inside the node-<os>-<arch> packages). They live in tools/cdktn, whose package.json
// and lock file are committed (node_modules is not). `npm test` runs this first (pretest) and it
// installs them only when they are missing; the cdktn test fails with cdktnTools()'s message if
// they are still missing. `KEYWARD_CDKTN_NODE` names another Node >= 22 binary (for platforms the
// registry has no Node 22 package for, e.g. macOS on arm64).

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export const TOOLS_DIR = resolve(__dirname, '..', 'tools', 'cdktn');
const MIN_NODE = [22, 19];
const INSTALL = 'npm ci --prefix tools/cdktn (or npm run test:tools; npm test does it first)';

export interface CdktnTools {
  /** A Node >= 22 binary. */
  node: string;
  /** Its directory: put first on PATH so `node` (the app, the provider launcher) is Node 22 too, as for a cdktn user. */
  nodeBinDir: string;
  /** cdktn-cli's entry script, run as `<node> <cli> synth|deploy|destroy`. */
  cli: string;
  cliVersion: string;
}

function pinned(name: string): string {
  const pkg = JSON.parse(readFileSync(join(TOOLS_DIR, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  return pkg.dependencies[name];
}

function nodeVersion(node: string): number[] | undefined {
  const r = spawnSync(node, ['--version'], { encoding: 'utf8' });
  const m = /^v(\d+)\.(\d+)\./.exec(r.stdout ?? '');
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

/** The installed tools, or an Error saying what is missing and how to install it. */
export function cdktnTools(): CdktnTools {
  const cliPkg = join(TOOLS_DIR, 'node_modules', 'cdktn-cli', 'package.json');
  const want = pinned('cdktn-cli');
  const cliVersion = existsSync(cliPkg) ? (JSON.parse(readFileSync(cliPkg, 'utf8')) as { version: string }).version : undefined;
  if (cliVersion !== want) {
    throw new Error(`cdktn-cli ${want} is not installed in ${TOOLS_DIR} (found ${cliVersion ?? 'none'}): run ${INSTALL}`);
  }
  const fromEnv = process.env.KEYWARD_CDKTN_NODE;
  const node = fromEnv || join(TOOLS_DIR, 'node_modules', '.bin', 'node');
  if (!existsSync(node)) {
    throw new Error(
      `no Node >= 22 binary at ${node}: run ${INSTALL}; where the registry has no node-${process.platform}-${process.arch} 22 package, ` +
        'set KEYWARD_CDKTN_NODE to a Node >= 22 binary',
    );
  }
  const v = nodeVersion(node);
  if (!v || v[0] < MIN_NODE[0] || (v[0] === MIN_NODE[0] && v[1] < MIN_NODE[1])) {
    throw new Error(`${fromEnv ? 'KEYWARD_CDKTN_NODE' : node} is Node ${v ? v.join('.') : '(unknown)'}; cdktn-cli ${want} needs Node >= ${MIN_NODE.join('.')}`);
  }
  const real = realpathSync(node);
  return { node: real, nodeBinDir: dirname(real), cli: join(TOOLS_DIR, 'node_modules', 'cdktn-cli', 'bundle', 'bin', 'cdktn.js'), cliVersion };
}

function main(): void {
  try {
    const t = cdktnTools();
    process.stdout.write(`test tools: cdktn-cli ${t.cliVersion} with ${t.node}\n`);
    return;
  } catch {
    // missing: install below
  }
  process.stdout.write(`test tools: installing cdktn-cli and Node 22 into ${TOOLS_DIR} from the npm registry\n`);
  const r = spawnSync('npm', ['ci', '--prefix', TOOLS_DIR, '--no-audit', '--no-fund'], { stdio: 'inherit' });
  if (r.status !== 0) {
    process.stderr.write(`test tools: npm ci in ${TOOLS_DIR} failed (exit ${r.status})\n`);
    process.exitCode = 1;
    return;
  }
  try {
    const t = cdktnTools();
    process.stdout.write(`test tools: cdktn-cli ${t.cliVersion} with ${t.node}\n`);
  } catch (e) {
    process.stderr.write(`test tools: ${(e as Error).message}\n`);
    process.exitCode = 1;
  }
}

/**
 * Real OpenBao, its GCP auth plugin and, where the machine has none, Terraform (tools/real-servers/install.sh: pinned,
 * idempotent, offline once cached). KEYWARD_SKIP_REAL_SERVERS=1 is the opt-out for a contributor without Go or
 * Python: reported loudly, and refused in CI.
 */
function realServers(): void {
  if (process.env.KEYWARD_SKIP_REAL_SERVERS === '1') {
    if (process.env.CI) {
      process.stderr.write('test tools: KEYWARD_SKIP_REAL_SERVERS=1 is refused in CI: the real-server suites are part of the gate\n');
      process.exitCode = 1;
      return;
    }
    process.stderr.write(
      `\n${'!'.repeat(100)}\n!! test tools: KEYWARD_SKIP_REAL_SERVERS=1: real OpenBao is NOT installed and the test/real suites will NOT run.\n${'!'.repeat(100)}\n\n`,
    );
    return;
  }
  const r = spawnSync('bash', [join(__dirname, '..', 'tools', 'real-servers', 'install.sh')], { stdio: 'inherit' });
  if (r.status !== 0) {
    process.stderr.write(
      r.status === 3
        ? 'test tools: a prerequisite of the real-server suites is missing (above); KEYWARD_SKIP_REAL_SERVERS=1 runs the rest without them\n'
        : `test tools: tools/real-servers/install.sh failed (exit ${r.status})\n`,
    );
    process.exitCode = 1;
  }
}

if (require.main === module) {
  main();
  if (!process.exitCode) realServers();
}
