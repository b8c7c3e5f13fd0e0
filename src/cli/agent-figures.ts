// What `keyward status` adds for a config served by `keyward snapshot-agent`: the last verified
// snapshot (kept across failed attempts, which blank last_snapshot_url) and whether the config is
// stale, read from the agent's GET sys/metrics?format=prometheus (src/snapshot-agent/metrics.ts)
// with the caller's token. Vault's status shape stays Vault's: nothing is added to it.

import type { ClientSettings } from '../client/options';

export interface AgentFigures {
  stale: boolean;
  consecutive_errors: number;
  /** RFC 3339, or null before the first verified snapshot. */
  last_good_snapshot_end: string | null;
  last_good_snapshot_url: string;
}

const SAMPLE = /^(keyward_snapshot_\w+)\{(.*)\} (\S+)$/;
const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g;
const unescape = (v: string) => v.replace(/\\(["\\n])/g, (_m, c: string) => (c === 'n' ? '\n' : c));

export function parseAgentMetrics(text: string): Map<string, AgentFigures> {
  const out = new Map<string, AgentFigures>();
  for (const line of text.split('\n')) {
    const m = SAMPLE.exec(line);
    if (!m) continue;
    const labels = Object.fromEntries([...m[2].matchAll(LABEL)].map((l) => [l[1], unescape(l[2])]));
    const config = labels.config;
    if (config === undefined) continue;
    const f = out.get(config) ?? { stale: false, consecutive_errors: 0, last_good_snapshot_end: null, last_good_snapshot_url: '' };
    const value = Number(m[3]);
    if (m[1] === 'keyward_snapshot_stale') f.stale = value === 1;
    else if (m[1] === 'keyward_snapshot_consecutive_errors') f.consecutive_errors = value;
    else if (m[1] === 'keyward_snapshot_last_success_timestamp_seconds' && value > 0) f.last_good_snapshot_end = new Date(value * 1000).toISOString().replace(/\.000Z$/, 'Z');
    else if (m[1] === 'keyward_snapshot_last_success_info') f.last_good_snapshot_url = labels.url ?? '';
    out.set(config, f);
  }
  return out;
}

/** The figures when the snapshot endpoint is a keyward agent; undefined for any other server. */
export async function readAgentFigures(settings: ClientSettings): Promise<Map<string, AgentFigures> | undefined> {
  const { createDispatcher } = require('../client/options') as typeof import('../client/options');
  const base = new URL((settings.snapshotAddress ?? settings.address).replace(/\/+$/, ''));
  const dispatcher = createDispatcher(settings);
  const get = (path: string) =>
    dispatcher.request({
      origin: base.origin,
      path: `${base.pathname.replace(/\/+$/, '')}/v1/${path}`,
      method: 'GET',
      headers: settings.token ? { 'x-vault-token': settings.token } : {},
    });
  try {
    const health = await get('sys/health?standbyok=true&sealedcode=200&uninitcode=200');
    const body = (await health.body.json().catch(() => undefined)) as { keyward_snapshot_agent?: unknown } | undefined;
    if (body?.keyward_snapshot_agent !== true) return undefined;
    const res = await get('sys/metrics?format=prometheus');
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`the snapshot agent's GET sys/metrics answered status ${res.statusCode}: ${text.slice(0, 200)}`);
    return parseAgentMetrics(text);
  } finally {
    await dispatcher.close();
  }
}
