// One schedule per configuration on the injected clock: first attempt one interval after the
// write, the next one interval after the previous attempt ends; attempts of one config never
// overlap; the status record is kept in memory (source of truth) and persisted after each change.
// Every attempt has a deadline (deadline.ts) and is aborted by stop(), so a stalled store never
// holds a schedule, a restore or shutdown.
// With a coordinator (the snapshot agent, several processes on one shared record store) the
// stored status is the truth: before an attempt the scheduler re-reads it (another process may
// have taken this slot already) and takes the slot's lease; resync() picks up other processes'
// writes and deletes.

import type { SystemContext } from '../route-family';
import type { TimerHandle } from '../clock';
import type { SnapshotConfig } from '../../schema/snapshot-config';
import { AttemptDeadlineError, attemptDeadlineMs, deadlinePolicyFromEnv, type DeadlinePolicy } from './deadline';
import type { AttemptClaim, AttemptCoordinator } from './coordination';
import { asSnapshotHost, type SnapshotHost } from './host';
import type { SnapshotRecordStore, StatusRecord } from './records';
import { planAttempt, runAttempt } from './runner';
import { createTarget } from './targets/create-target';

interface Entry {
  /** Bumped by every write/delete; timers and attempts of an older generation do nothing. */
  gen: number;
  timer?: TimerHandle;
  running?: Promise<void>;
  /** Aborts the attempt in progress (deadline, stop). */
  abort?: AbortController;
  status: StatusRecord;
  /** written_at of the config this entry schedules (resync() notices other processes' writes). */
  writtenAt?: number;
  /** The lease of the attempt in progress (coordinated schedulers only). */
  claim?: AttemptClaim;
  /** Serializes status writes so an older one never lands after a newer one. */
  persisting: Promise<void>;
}

/** Names of written snapshots kept in a config's sequence (more than any sane retain). */
const SEQUENCE_KEPT = 1000;
/** Failed upload names remembered for deletion (older ones are given up). */
const ORPHANS_KEPT = 100;

export class SnapshotScheduler {
  private entries = new Map<string, Entry>();
  /** Failed upload names per config, also kept here: a restore replaces the persisted status. */
  private readonly orphans = new Map<string, string[]>();
  /** Configs resync() could not read, with the error last reported (reported once per change). */
  private readonly refused = new Map<string, string>();
  private stopped = true;
  private started = false;
  private readonly sys: SnapshotHost;

  constructor(
    host: SnapshotHost | SystemContext,
    private readonly records: SnapshotRecordStore,
    private readonly deadline: DeadlinePolicy = deadlinePolicyFromEnv(),
    private readonly coordinator?: AttemptCoordinator,
  ) {
    this.sys = asSnapshotHost(host);
  }

  /** Loads every config and resumes its schedule (overdue ones run as soon as possible). */
  async start(): Promise<void> {
    this.stopped = false;
    // Scratch leftovers of a crash are removed at process start only: after a restore's reload a
    // manual save may still be streaming from that directory.
    if (!this.started) await this.sys.cleanupScratch();
    this.started = true;
    const loaded: [string, Entry, number][] = [];
    for (const name of await this.records.listConfigs()) {
      const rec = await this.records.getConfig(name);
      if (!rec) continue;
      const status = (await this.records.getStatus(name)) ?? { consecutive_errors: 0 };
      const interval = rec.config.interval * 1000;
      const next = status.next_snapshot_start ?? (status.last_snapshot_end ?? rec.written_at) + interval;
      const entry: Entry = { gen: 0, status, writtenAt: rec.written_at, persisting: Promise.resolve() };
      this.entries.set(name, entry);
      // Temp files of a crash go before any timer is armed: an overdue attempt must not start
      // writing while the cleanup still runs (it would delete the new temp file). Coordinated:
      // another process may be writing one right now; retention removes leftovers instead.
      if (!this.coordinator) await this.cleanupTarget(name, rec.config);
      loaded.push([name, entry, next]);
    }
    if (this.stopped) return;
    for (const [name, entry, next] of loaded) this.arm(name, entry, Math.max(this.sys.clock.now(), next));
  }

  /** Cancels timers and aborts attempts in progress (they end at once, recorded as errors). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const e of this.entries.values()) {
      e.timer?.cancel();
      e.abort?.abort(new Error('the attempt was aborted: the engine is stopping or restoring a snapshot'));
    }
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
  async configWritten(name: string, config: SnapshotConfig, writtenAt?: number): Promise<void> {
    const prev = this.entries.get(name);
    prev?.timer?.cancel();
    const entry: Entry = prev ?? { gen: 0, status: { consecutive_errors: 0 }, persisting: Promise.resolve() };
    entry.gen++;
    entry.writtenAt = writtenAt;
    entry.status.next_snapshot_start = this.sys.clock.now() + config.interval * 1000;
    this.entries.set(name, entry);
    await this.persist(name, entry);
    if (!this.stopped) this.arm(name, entry, entry.status.next_snapshot_start);
  }

  /**
   * A delete: the schedule stops; an attempt in progress finishes its upload (aborting it could
   * leave a partial object on stores that write as bytes arrive) but starts no further store
   * operation (rotation, orphan deletes) and writes no status.
   */
  configDeleted(name: string): void {
    const entry = this.entries.get(name);
    if (!entry) return;
    entry.gen++;
    entry.timer?.cancel();
    this.entries.delete(name);
  }

  /**
   * Coordinated schedulers: picks up what other processes wrote to the shared records (new,
   * changed and deleted configs; attempts they finished) and re-arms the timers accordingly.
   */
  async resync(): Promise<void> {
    if (this.stopped) return;
    const names = new Set(await this.records.listConfigs());
    for (const name of [...this.entries.keys()]) if (!names.has(name)) this.configDeleted(name);
    for (const name of names) {
      let rec: Awaited<ReturnType<SnapshotRecordStore['getConfig']>>;
      try {
        rec = await this.records.getConfig(name);
      } catch (e) {
        // One record the store refuses (the agent's unsealed record) must not stop the others'.
        if (this.refused.get(name) !== (e as Error).message) this.sys.log.error('snapshot config refused', { name, error: (e as Error).message });
        this.refused.set(name, (e as Error).message);
        continue;
      }
      this.refused.delete(name);
      if (!rec || this.stopped) continue;
      const stored = await this.records.getStatus(name);
      let entry = this.entries.get(name);
      if (entry && entry.writtenAt === rec.written_at) {
        // Same config: adopt a later schedule another process recorded (it took the slot).
        const theirs = stored?.next_snapshot_start;
        if (!entry.running && stored && theirs !== undefined && theirs > (entry.status.next_snapshot_start ?? 0)) {
          entry.status = stored;
          this.arm(name, entry, Math.max(this.sys.clock.now(), theirs));
        }
        continue;
      }
      // New here, or rewritten by another process: the schedule restarts from the stored status.
      entry?.timer?.cancel();
      if (entry) entry.gen++;
      else {
        entry = { gen: 0, status: { consecutive_errors: 0 }, persisting: Promise.resolve() };
        this.entries.set(name, entry);
      }
      entry.writtenAt = rec.written_at;
      entry.status = stored ?? { consecutive_errors: 0 };
      const next = entry.status.next_snapshot_start ?? rec.written_at + rec.config.interval * 1000;
      this.arm(name, entry, Math.max(this.sys.clock.now(), next));
    }
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
    entry.running = this.attempt(name, entry, gen)
      // Nothing a run throws may escape as an unhandled rejection: it is logged and counted.
      .catch((e: unknown) => this.failed(name, entry, gen, e))
      .finally(() => {
        entry.running = undefined;
        entry.abort = undefined;
      });
  }

  private async attempt(name: string, entry: Entry, gen: number): Promise<void> {
    const rec = await this.records.getConfig(name);
    if (!rec || this.entries.get(name) !== entry) return;
    const config = rec.config;
    if (this.coordinator) {
      const claim = await this.claimSlot(name, entry, gen, config);
      if (!claim) return;
      entry.claim = claim;
      try {
        await this.attemptWith(name, entry, gen, config);
      } finally {
        entry.claim = undefined;
        await claim.release().catch((e: unknown) => this.sys.log.warn('snapshot lease release failed', { name, error: (e as Error).message }));
      }
      return;
    }
    await this.attemptWith(name, entry, gen, config);
  }

  /**
   * The lease on this entry's slot, or undefined after re-arming: when another process already
   * took the slot (the stored status moved on) or holds its lease (asked again later).
   */
  private async claimSlot(name: string, entry: Entry, gen: number, config: SnapshotConfig): Promise<AttemptClaim | undefined> {
    const c = this.coordinator!;
    const slot = entry.status.next_snapshot_start ?? this.sys.clock.now();
    const movedOn = async () => {
      const stored = await this.records.getStatus(name);
      const theirs = stored?.next_snapshot_start;
      if (!stored || theirs === undefined || theirs <= slot) return false;
      entry.status = stored;
      if (entry.gen === gen && !this.stopped) this.arm(name, entry, Math.max(this.sys.clock.now(), theirs));
      return true;
    };
    if (await movedOn()) return undefined;
    const claim = await c.claim(name, slot, config.interval);
    if (!claim) {
      if (entry.gen === gen && !this.stopped) this.arm(name, entry, this.sys.clock.now() + c.retryMs(config.interval));
      return undefined;
    }
    // Checked again under the lease: the previous holder may have finished the slot meanwhile.
    if (await movedOn()) {
      await claim.release();
      return undefined;
    }
    // The stored status carries the sequence and orphans of attempts other processes made.
    const stored = await this.records.getStatus(name);
    if (stored) entry.status = { ...stored, next_snapshot_start: slot };
    return claim;
  }

  private async attemptWith(name: string, entry: Entry, gen: number, config: SnapshotConfig): Promise<void> {
    const start = this.sys.clock.now();
    const wanted = () => this.entries.get(name) === entry;
    let plan: ReturnType<typeof planAttempt>;
    try {
      this.sys.vetConfig?.(config);
      plan = planAttempt(config, start);
    } catch (e) {
      return this.finish(name, entry, gen, config, start, undefined, (e as Error).message);
    }
    const skip = await this.sys.skipReason?.();
    if (skip !== undefined) {
      this.sys.log.warn('snapshot attempt skipped', { name, reason: skip });
      return this.finish(name, entry, gen, config, start, undefined, `attempt skipped: ${skip}`);
    }
    const abort = new AbortController();
    entry.abort = abort;
    const lost = entry.claim?.lost;
    const onLost = () => abort.abort(new Error('the attempt was aborted: this agent lost the lease of the slot (another agent took it over)'));
    if (lost?.aborted) onLost();
    lost?.addEventListener('abort', onLost, { once: true });
    let deadline: TimerHandle | undefined;
    const armDeadline = (bytes: number) => {
      deadline?.cancel();
      const ms = attemptDeadlineMs(config.interval, bytes, this.deadline);
      deadline = this.sys.clock.setTimer(Math.max(0, start + ms - this.sys.clock.now()), () => abort.abort(new AttemptDeadlineError(ms)));
    };
    armDeadline(0);
    let error: string | undefined;
    let retentionError: string | undefined;
    let stored: number | undefined;
    try {
      entry.status.snapshot_start = start;
      entry.status.snapshot_url = plan.url;
      await this.persist(name, entry);
      const sequence = new Map((entry.status.sequence ?? []).map((x) => [x.name, x.seq]));
      const orphans = [...new Set([...(entry.status.orphans ?? []), ...(this.orphans.get(name) ?? [])])];
      const r = await runAttempt(this.sys, config, plan, start, { signal: abort.signal, stillWanted: wanted, onArchiveSize: armDeadline, sequence, orphans });
      retentionError = r.retentionError;
      stored = r.size;
      entry.status.orphans = r.orphansLeft;
      this.orphans.set(name, r.orphansLeft);
      this.remember(entry, plan.name, r.deleted);
    } catch (e) {
      error = (e as Error).message;
      if (config.storage_type !== 'local') {
        entry.status.orphans = [...(entry.status.orphans ?? []), plan.name].slice(-ORPHANS_KEPT);
        this.orphans.set(name, [...(this.orphans.get(name) ?? []), plan.name].slice(-ORPHANS_KEPT));
      }
    } finally {
      deadline?.cancel();
      lost?.removeEventListener('abort', onLost);
    }
    if (error) this.sys.log.warn('snapshot failure', { name, error });
    else if (retentionError) this.sys.log.warn('snapshot retention failure', { name, error: retentionError });
    await this.finish(name, entry, gen, config, start, error ? undefined : plan.url, error ?? retentionError, stored);
  }

  /** Appends a written snapshot to the config's sequence (what retention orders by). */
  private remember(entry: Entry, written: string, deleted: string[]): void {
    const s = entry.status;
    const seq = (s.snapshot_seq ?? 0) + 1;
    s.snapshot_seq = seq;
    const gone = new Set(deleted);
    s.sequence = [...(s.sequence ?? []).filter((x) => !gone.has(x.name)), { name: written, seq }].slice(-SEQUENCE_KEPT);
  }

  /** A run that threw outside runAttempt (a storage error persisting status): count it. */
  private async failed(name: string, entry: Entry, gen: number, e: unknown): Promise<void> {
    const error = `snapshot attempt failed: ${e instanceof Error ? e.message : String(e)}`;
    this.sys.log.error('snapshot attempt failed', { name, error });
    if (this.entries.get(name) !== entry) return;
    const s = entry.status;
    s.last_snapshot_end = this.sys.clock.now();
    s.last_snapshot_error = error;
    s.last_snapshot_url = '';
    s.consecutive_errors += 1;
    if (entry.gen === gen) s.next_snapshot_start = s.last_snapshot_end + (await this.intervalMs(name));
    await this.persist(name, entry).catch(() => undefined);
    if (entry.gen === gen && !this.stopped && s.next_snapshot_start !== undefined) this.arm(name, entry, s.next_snapshot_start);
  }

  private async intervalMs(name: string): Promise<number> {
    try {
      const rec = await this.records.getConfig(name);
      if (rec) return rec.config.interval * 1000;
    } catch {
      // The store itself is failing: retry after a minute rather than never.
    }
    return 60_000;
  }

  private async finish(
    name: string,
    entry: Entry,
    gen: number,
    config: SnapshotConfig,
    start: number,
    url: string | undefined,
    error: string | undefined,
    bytes?: number,
  ): Promise<void> {
    if (this.entries.get(name) !== entry) return; // deleted meanwhile: do not resurrect status
    const end = this.sys.clock.now();
    const s = entry.status;
    if (url !== undefined) {
      s.last_success_end = end;
      s.last_success_url = url;
      if (bytes !== undefined) s.last_success_bytes = bytes;
    }
    s.last_snapshot_start = start;
    s.last_snapshot_end = end;
    s.last_snapshot_error = error ?? '';
    s.last_snapshot_url = url ?? '';
    // A written snapshot whose rotation failed keeps its URL but still counts as an error.
    s.consecutive_errors = error ? s.consecutive_errors + 1 : 0;
    if (entry.gen === gen) s.next_snapshot_start = end + config.interval * 1000;
    try {
      await this.persist(name, entry);
    } catch (e) {
      // The in-memory status (what the route serves) holds the outcome; the schedule goes on.
      this.sys.log.error('snapshot status could not be saved', { name, error: (e as Error).message });
    }
    if (entry.gen === gen && !this.stopped) this.arm(name, entry, s.next_snapshot_start!);
  }

  private persist(name: string, entry: Entry): Promise<void> {
    const snapshot = { ...entry.status };
    // A process that lost its lease writes nothing: the status is the new holder's.
    const claim = entry.claim;
    entry.persisting = entry.persisting
      .catch(() => undefined)
      .then(async () => {
        if (this.entries.get(name) === entry && !claim?.lost.aborted) await this.records.putStatus(name, snapshot);
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
