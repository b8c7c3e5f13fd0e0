// The SQLite layer A/B (issue 23): today's storage (better-sqlite3 12 on the image's Node 20)
// beside the layer Node >= 22 now loads (better-sqlite3 13, Node-API) on Node 24, and on Node 22
// when tools/cdktn's Node 22 is installed. Each side is the engine's SqliteStorage in its own
// process (bench/sqlite-side.ts); rounds alternate between sides so all see the same phases of a
// shared machine. Prints group-committed writes/s and snapshot production time (median of 3
// views of the store) per side, their ratios to side A, and the load average.
//
//   npx tsx bench/sqlite-ab.ts [--rounds 3] [--entries 100000] [--write-seconds 3] [--concurrency 64]

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';

const opt = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? def : process.argv[i + 1];
};
const here = resolve(__dirname, '..');
const ROUNDS = Number(opt('rounds', '3'));
const ENTRIES = opt('entries', '100000');
const WRITE_SECONDS = opt('write-seconds', '3');
const CONCURRENCY = opt('concurrency', '64');

const candidates = [
  // Side A needs a Node 20: this one when it is, else KEYWARD_NODE20 (default /usr/bin/node, the image's).
  { label: 'A today (Node 20, better-sqlite3 12)', node: process.version.startsWith('v20.') ? process.execPath : (process.env.KEYWARD_NODE20 ?? '/usr/bin/node') },
  { label: 'B Node 24, better-sqlite3 13', node: join(here, 'tools', 'node24', 'node_modules', '.bin', 'node') },
  { label: 'C Node 22, better-sqlite3 13', node: join(here, 'tools', 'cdktn', 'node_modules', '.bin', 'node') },
];
const sides = candidates.filter((s) => existsSync(s.node));

interface Result {
  node: string;
  sqlite: string;
  writeRate: number;
  snapshotMs: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function main() {
  const load0 = loadavg();
  const results = sides.map(() => [] as Result[]);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, side] of sides.entries()) {
      const out = execFileSync(side.node, ['-r', require.resolve('tsx/cjs'), join(__dirname, 'sqlite-side.ts'), ENTRIES, WRITE_SECONDS, CONCURRENCY], { encoding: 'utf8' });
      results[i].push(JSON.parse(out.trim().split('\n').pop()!) as Result);
    }
  }
  const base = { w: median(results[0].map((r) => r.writeRate)), s: median(results[0].map((r) => r.snapshotMs)) };
  const lines = sides.map((side, i) => {
    const w = median(results[i].map((r) => r.writeRate));
    const s = median(results[i].map((r) => r.snapshotMs));
    const r0 = results[i][0];
    return `  ${side.label} [${r0.node}, ${r0.sqlite}]: ${Math.round(w).toLocaleString('en-US')} writes/s (${(w / base.w).toFixed(2)}x A), snapshot of ${ENTRIES} entries ${s.toFixed(0)} ms (${(s / base.s).toFixed(2)}x A)`;
  });
  process.stdout.write(
    [
      `SQLite storage A/B: ${CONCURRENCY} concurrent writers for ${WRITE_SECONDS}s (group commit, durable acks), snapshot view of ${ENTRIES} entries; medians of ${ROUNDS} alternating rounds`,
      ...lines,
      `  load average before ${load0.map((l) => l.toFixed(2)).join(' ')}, after ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} (2 cores)`,
    ].join('\n') + '\n',
  );
}

main();
