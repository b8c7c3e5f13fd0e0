// `keyward status`: the automated snapshot configurations of a server with their last and next
// snapshot, consecutive errors, last error and URL, and autoload's loaded snapshot and loading
// error where the server reports them, as a table or (--json) as data.

import type { Command } from 'commander';
import type { SnapshotConfigRead, SnapshotStatus } from '../../client/snapshots';
import type { VaultClient } from '../../client/vault-client';
import type { AgentFigures } from '../agent-figures';
import { addDialectOption, type DialectFlags } from '../options';

export interface SnapshotStatusRow {
  name: string;
  storage_type: string;
  interval: number | null;
  retain: number | null;
  last_snapshot_end: string | null;
  next_snapshot_start: string | null;
  /** null when the server does not count them (Vault sends no consecutive_errors). */
  consecutive_errors: number | null;
  last_snapshot_error: string;
  last_snapshot_url: string;
  /** Autoload (Vault 1.21), present when the server sent them. */
  loaded_snapshot_id?: string;
  loaded_snapshot_status?: string;
  loaded_snapshot_expires_at?: string;
  loading_error?: string;
  /** Set when this row could not be read; the other rows are still listed. */
  read_error?: string;
  /** From a `keyward snapshot-agent` (agent-figures.ts): the last verified snapshot, kept across failures. */
  last_good_snapshot_end?: string | null;
  last_good_snapshot_url?: string;
  /** From a `keyward snapshot-agent`: no verified snapshot for more than two intervals. */
  stale?: boolean;
}

/** `keyward status`'s exit code when some config is stale (distinct from 1, an error). */
export const STALE_EXIT_CODE = 3;

/** Adds an agent's figures (agent-figures.ts) to the rows of the configs it reports. */
export function withAgentFigures(rows: SnapshotStatusRow[], figures: Map<string, AgentFigures>): SnapshotStatusRow[] {
  return rows.map((r) => {
    const f = figures.get(r.name);
    return f ? { ...r, last_good_snapshot_end: f.last_good_snapshot_end, last_good_snapshot_url: f.last_good_snapshot_url, stale: f.stale } : r;
  });
}

const LOADED = ['loaded_snapshot_id', 'loaded_snapshot_status', 'loaded_snapshot_expires_at', 'loading_error'] as const;

/** A status time, or null for "not yet": the engine leaves the field out, Vault sends "". */
const when = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

export async function collectStatus(client: VaultClient, parallelism = 8): Promise<SnapshotStatusRow[]> {
  const names = await client.snapshots.list();
  const rows: SnapshotStatusRow[] = new Array(names.length);
  let next = 0;
  const worker = async () => {
    while (next < names.length) {
      const i = next++;
      // One row failing (a server error on a bad stored value) must not hide the others.
      let read_error: string | undefined;
      const settle = <T>(p: Promise<T>): Promise<T | undefined> =>
        p.catch((e: unknown) => {
          read_error ??= e instanceof Error ? e.message : String(e);
          return undefined;
        });
      const [config, status]: [SnapshotConfigRead | undefined, SnapshotStatus | undefined] = await Promise.all([
        settle(client.snapshots.read(names[i])),
        settle(client.snapshots.status(names[i])),
      ]);
      rows[i] = {
        ...(read_error !== undefined ? { read_error } : {}),
        name: names[i],
        storage_type: String(config?.storage_type ?? ''),
        interval: typeof config?.interval === 'number' ? config.interval : null,
        retain: typeof config?.retain === 'number' ? config.retain : null,
        last_snapshot_end: when(status?.last_snapshot_end),
        next_snapshot_start: when(status?.next_snapshot_start),
        consecutive_errors: typeof status?.consecutive_errors === 'number' ? status.consecutive_errors : null,
        last_snapshot_error: String(status?.last_snapshot_error ?? ''),
        last_snapshot_url: String(status?.last_snapshot_url ?? ''),
      };
      for (const k of LOADED) if (typeof status?.[k] === 'string') rows[i][k] = status[k] as string;
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallelism, names.length) }, worker));
  return rows;
}

/**
 * The ERRORS cell. Without the server's count (Vault) it says what the last attempt shows: ">=1"
 * after a failure, 0 after a success, "-" before any attempt; never a made-up "0" for a failing config.
 */
function errorsCell(r: SnapshotStatusRow): string {
  if (r.consecutive_errors !== null) return String(r.consecutive_errors);
  if (r.last_snapshot_error !== '') return '>=1';
  return r.last_snapshot_end !== null ? '0' : '-';
}

/** "<id> (<status>, expires <t>): <error>" from whichever loaded_* fields carry a value; "" when none. */
function loadedCell(r: SnapshotStatusRow): string {
  const id = r.loaded_snapshot_id ?? '';
  const detail = [r.loaded_snapshot_status ?? '', r.loaded_snapshot_expires_at ? `expires ${r.loaded_snapshot_expires_at}` : ''].filter((x) => x !== '').join(', ');
  const what = [id, detail ? `(${detail})` : ''].filter((x) => x !== '').join(' ');
  return r.loading_error ? (what ? `${what}: ${r.loading_error}` : r.loading_error) : what;
}

/**
 * A plain aligned table; "-" for values that do not exist yet (a config that never ran). The
 * AUTOLOAD column appears when some config reports a loaded snapshot or a loading error.
 */
export function renderStatusTable(rows: SnapshotStatusRow[]): string {
  if (rows.length === 0) return 'No automated snapshot configurations.\n';
  const autoload = rows.some((r) => loadedCell(r) !== '');
  // An agent's rows carry the last verified snapshot and staleness: shown beside the last error.
  const agent = rows.some((r) => r.stale !== undefined);
  const header = [
    'NAME',
    'TYPE',
    'LAST SNAPSHOT',
    'NEXT SNAPSHOT',
    'ERRORS',
    ...(agent ? ['STALE'] : []),
    'LAST ERROR',
    ...(autoload ? ['AUTOLOAD'] : []),
    'URL',
    ...(agent ? ['LAST GOOD'] : []),
  ];
  const cells = rows.map((r) => [
    r.name,
    r.storage_type,
    r.last_snapshot_end ?? '-',
    r.next_snapshot_start ?? '-',
    errorsCell(r),
    ...(agent ? [r.stale === undefined ? '-' : r.stale ? 'STALE' : 'no'] : []),
    r.read_error !== undefined ? `cannot read: ${r.read_error}` : r.last_snapshot_error || '-',
    ...(autoload ? [loadedCell(r) || '-'] : []),
    r.last_snapshot_url || '-',
    ...(agent ? [r.last_good_snapshot_url ? `${r.last_good_snapshot_url} (${r.last_good_snapshot_end ?? '?'})` : '-'] : []),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) =>
    c
      .map((v, i) => (i === c.length - 1 ? v : v.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), ...cells.map(line)].join('\n') + '\n';
}

interface StatusFlags extends DialectFlags {
  json?: boolean;
  address?: string;
  snapshotAddress?: string;
  caCert?: string;
  tlsSkipVerify?: boolean;
}

export function registerStatus(program: Command): void {
  const c = program.command('status');
  addDialectOption(c);
  c.description(
    `Show automated snapshot configurations: last and next snapshot, errors and URL (through keyward snapshot-agent also the last verified snapshot and staleness; exit code ${STALE_EXIT_CODE} when a config is stale, 1 on error)`,
  )
    .option('--json', 'print the rows as JSON')
    .option('--address <url>', 'server address (default: $VAULT_ADDR, then http://127.0.0.1:8200)')
    .option('--snapshot-address <url>', 'a `keyward snapshot-agent` serving the snapshot configs instead of the server (default: $KEYWARD_SNAPSHOT_ADDR)')
    .option('--ca-cert <file>', 'PEM file of the CA to trust (default: $VAULT_CACERT)')
    .option('--tls-skip-verify', 'do not verify the server certificate (testing only)')
    .action(async (flags: StatusFlags) => {
      // The token comes from $VAULT_TOKEN only; snapshot paths live in the root namespace.
      const { VaultClient } = require('../../client/vault-client') as typeof import('../../client/vault-client');
      const { settingsFromEnv } = require('../../client/options') as typeof import('../../client/options');
      const { readAgentFigures } = require('../agent-figures') as typeof import('../agent-figures');
      const settings = settingsFromEnv({
        address: flags.address,
        snapshotAddress: flags.snapshotAddress,
        caFile: flags.caCert,
        tlsSkipVerify: flags.tlsSkipVerify,
        dialect: flags.dialect,
      });
      const client = new VaultClient(settings);
      try {
        let rows = await collectStatus(client);
        const figures = await readAgentFigures(settings);
        if (figures) rows = withAgentFigures(rows, figures);
        if (rows.some((r) => r.stale === true)) process.exitCode = STALE_EXIT_CODE;
        process.stdout.write(flags.json ? JSON.stringify({ snapshots: rows }, null, 2) + '\n' : renderStatusTable(rows));
      } finally {
        await client.close();
      }
    });
}
