// One schedule per configuration on the injected clock: first attempt one interval after the
// write, the next one interval after the previous attempt ends; attempts of one config never
// overlap; the status record is kept in memory (source of truth) and persisted after each change.

import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { SystemContext } from '../backend';
import type { TimerHandle } from '../clock';
import type { SnapshotConfig } from '../../schema/snapshot-config';
import { SnapshotRecords, type StatusRecord } from './records';
import { SCRATCH_DIR, planAttempt, runAttempt } from './runner';
import { createTarget } from './targets/create-target';

interface Entry {
  /** Bumped by every write/delete; timers and attempts of an older generation do nothing. */
  gen: number;
  timer?: TimerHandle;
  running?: Promise<void>;
  status: StatusRecord;
  /** Serializes status writes so an older one never lands after a newer one. */
  persisting: Promise<void>;
}

export class SnapshotScheduler {
  private entries = new Map<string, Entry>();
  private stopped = true;
  private started = false;

  constructor(
    private readonly sys: SystemContext,
    private readonly records: SnapshotRecords,
  ) {}

  /** Loads every config and resumes its schedule (overdue ones run as soon as possible). */
  async start(): Promise<void> {
    this.stopped = false;
    // Scratch leftovers of a crash are removed at process start only: after a restore's reload a
    // manual save may still be streaming from that directory.
    if (!this.started) await rm(join(this.sys.dataDir, SCRATCH_DIR), { recursive: true, force: true });
    this.started = true;
    for (const name of await this.records.listConfigs()) {
      const rec = await this.records.getConfig(name);
      if (!rec) continue;
      const status = (await this.records.getStatus(name)) ?? { consecutive_errors: 0 };
      const interval = rec.config.interval * 1000;
      const next = status.next_snapshot_start ?? (status.last_snapshot_end ?? rec.written_at) + interval;
      const entry: Entry = { gen: 0, status, persisting: Promise.resolve() };
      this.entries.set(name, entry);
      this.arm(name, entry, Math.max(this.sys.clock.now(), next));
      await this.cleanupTarget(name, rec.config);
    }
  }

  /** Cancels timers and waits for attempts in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const e of this.entries.values()) e.timer?.cancel();
    await this.settled();
    this.entries.clear();
  }

  /** Resolves when no attempt is running (tests await it after advancing the clock). */
  async settled(): Promise<void> {
    for (;;) {
      const running = [...this.entries.values()].map((e) => e.running).filter((p): p is Promise<void> => !!p);
      if (running.length === 0) return;
      await Promise.allSettled(running);
    }
  }

  status(name: string): StatusRecord | undefined {
    return this.entries.get(name)?.status;
  }

  /** A create or update: the schedule restarts from now (next = now + interval). */
  async configWritten(name: string, config: SnapshotConfig): Promise<void> {
    const prev = this.entries.get(name);
    prev?.timer?.cancel();
    const entry: Entry = prev ?? { gen: 0, status: { consecutive_errors: 0 }, persisting: Promise.resolve() };
    entry.gen++;
    entry.status.next_snapshot_start = this.sys.clock.now() + config.interval * 1000;
    this.entries.set(name, entry);
    await this.persist(name, entry);
    if (!this.stopped) this.arm(name, entry, entry.status.next_snapshot_start);
  }

  /** A delete: the schedule stops; an attempt in progress finishes without retention or status. */
  configDeleted(name: string): void {
    const entry = this.entries.get(name);
    if (!entry) return;
    entry.gen++;
    entry.timer?.cancel();
    this.entries.delete(name);
  }

  private arm(name: string, entry: Entry, at: number): void {
    entry.timer?.cancel();
    const gen = entry.gen;
    entry.timer = this.sys.clock.setTimer(Math.max(0, at - this.sys.clock.now()), () => this.fire(name, entry, gen));
  }

  private fire(name: string, entry: Entry, gen: number): void {
    if (this.stopped || entry.gen !== gen || this.entries.get(name) !== entry) return;
    if (entry.running) {
      // Never two attempts of one config at once: this one starts when the current one ends.
      void entry.running.then(() => this.fire(name, entry, gen));
      return;
    }
    entry.running = this.attempt(name, entry, gen).finally(() => {
      entry.running = undefined;
    });
  }

  private async attempt(name: string, entry: Entry, gen: number): Promise<void> {
    const rec = await this.records.getConfig(name);
    if (!rec || this.entries.get(name) !== entry) return;
    const config = rec.config;
    const start = this.sys.clock.now();
    const wanted = () => this.entries.get(name) === entry;
    let plan: ReturnType<typeof planAttempt>;
    try {
      plan = planAttempt(config, start);
    } catch (e) {
      return this.finish(name, entry, gen, config, start, undefined, (e as Error).message);
    }
    entry.status.snapshot_start = start;
    entry.status.snapshot_url = plan.url;
    await this.persist(name, entry);
    let error: string | undefined;
    let retentionError: string | undefined;
    try {
      retentionError = (await runAttempt(this.sys, config, plan, start, wanted)).retentionError;
    } catch (e) {
      error = (e as Error).message;
    }
    if (error) this.sys.log.warn('snapshot failure', { name, error });
    else if (retentionError) this.sys.log.warn('snapshot retention failure', { name, error: retentionError });
    await this.finish(name, entry, gen, config, start, error ? undefined : plan.url, error ?? retentionError);
  }

  private async finish(name: string, entry: Entry, gen: number, config: SnapshotConfig, start: number, url: string | undefined, error: string | undefined): Promise<void> {
    if (this.entries.get(name) !== entry) return; // deleted meanwhile: do not resurrect status
    const end = this.sys.clock.now();
    const s = entry.status;
    s.last_snapshot_start = start;
    s.last_snapshot_end = end;
    s.last_snapshot_error = error ?? '';
    s.last_snapshot_url = url ?? '';
    // A written snapshot whose rotation failed keeps its URL but still counts as an error.
    s.consecutive_errors = error ? s.consecutive_errors + 1 : 0;
    if (entry.gen === gen) s.next_snapshot_start = end + config.interval * 1000;
    await this.persist(name, entry);
    if (entry.gen === gen && !this.stopped) this.arm(name, entry, s.next_snapshot_start!);
  }

  private persist(name: string, entry: Entry): Promise<void> {
    const snapshot = { ...entry.status };
    entry.persisting = entry.persisting
      .catch(() => undefined)
      .then(async () => {
        if (this.entries.get(name) === entry) await this.records.putStatus(name, snapshot);
      });
    return entry.persisting;
  }

  private async cleanupTarget(name: string, config: SnapshotConfig): Promise<void> {
    try {
      const t = createTarget(config);
      await t.cleanup();
      await t.close();
    } catch (e) {
      this.sys.log.warn('snapshot target cleanup failed', { name, error: (e as Error).message });
    }
  }
}
