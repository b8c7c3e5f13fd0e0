// Test helpers for the snapshot agent: an oss engine and agents on one manual clock (so token
// TTLs, leases and schedules move together, deterministically), each on 127.0.0.1:0.

import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../src/engine/clock';
import { startSnapshotAgent, type SnapshotAgent, type SnapshotAgentOptions } from '../../src/snapshot-agent/agent';
import { ROOT_TOKEN, startTestEngine } from './engine';

export const T0 = Date.UTC(2026, 0, 1);
export const AGENT_CONFIG = 'sys/storage/raft/snapshot-auto/config';
export const AGENT_STATUS = 'sys/storage/raft/snapshot-auto/status';

export interface AgentHarness {
  root: string;
  clock: ManualClock;
  engine: Awaited<ReturnType<typeof startTestEngine>>;
  agents: SnapshotAgent[];
  /** Starts an agent on the harness's state directory (or `state`). */
  agent(o?: Partial<SnapshotAgentOptions>): Promise<SnapshotAgent>;
  /** Advances the clock in steps of `stepMs`, waiting after each for every agent's work. */
  advance(ms: number, stepMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startAgentHarness(): Promise<AgentHarness> {
  const root = await mkdtemp(join(tmpdir(), 'kw-agent-'));
  const clock = new ManualClock(T0);
  const engine = await startTestEngine({ clock, edition: 'oss', dataDir: join(root, 'engine') });
  const agents: SnapshotAgent[] = [];
  const settle = async () => {
    for (const a of agents) {
      await a.scheduler.settled();
      await a.tokens.idle();
    }
  };
  return {
    root,
    clock,
    engine,
    agents,
    agent: async (o = {}) => {
      const a = await startSnapshotAgent({
        server: engine.url,
        listen: '127.0.0.1:0',
        state: join(root, 'state'),
        env: { VAULT_TOKEN: ROOT_TOKEN },
        clock,
        pollMs: 1_000,
        ...o,
      });
      agents.push(a);
      return a;
    },
    advance: async (ms, stepMs = 500) => {
      for (let left = ms; left > 0; left -= stepMs) {
        await clock.advance(Math.min(stepMs, left));
        await settle();
      }
    },
    close: async () => {
      for (const a of agents) await a.close();
      await engine.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

export const snapshotsIn = async (dir: string, prefix = 'vault-snapshot') =>
  (await readdir(dir).catch(() => [] as string[])).filter((n) => new RegExp(`^${prefix}-\\d+\\.snap$`).test(n)).sort();
