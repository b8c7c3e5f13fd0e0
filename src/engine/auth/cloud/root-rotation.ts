// Root credential rotation of a cloud mount, as Vault's plugin does it: create a new key for the
// configured service account through IAM, switch the config to it, then delete the old key. A
// failure before the switch leaves the old key in use; a failure deleting the old key leaves the
// new one in use; both say so. Automated rotation by rotation_period or rotation_schedule (cron,
// retried within rotation_window) runs on the engine's clock unless disable_automated_rotation.

import type { Clock, TimerHandle } from '../../clock';
import type { Logger } from '../../log';
import { ApiError, Errors } from '../../../schema/errors';
import { parseServiceAccountKey, type StoredCloudConfig } from '../../../schema/cloud-config';
import { MIN_ROTATION_PERIOD_SECONDS, automatedRotationActive, usesFederation } from '../../../schema/cloud-config-keyless';
import { nextCronTime, parseCron, previousCronTime } from '../../../schema/cron';
import type { CloudState } from './state';

const RECORD_KEY = 'rotation';
/** Retry delay after a failed automated rotation (within the window for schedules). */
export const RETRY_MS = 60_000;

interface RotationRecord {
  /** When the key was last replaced (ms). */
  last_rotation?: number;
  /** The rotation settings the schedule was armed with, and since when (a period counts from then). */
  basis?: string;
  since?: number;
}

const upstream = (msg: string) => new ApiError('upstream', [msg]);
const message = (e: unknown) => (ApiError.isApiError(e) ? e.errors.join('; ') : e instanceof Error ? e.message : String(e));
const basisOf = (c: StoredCloudConfig) => JSON.stringify([c.rotation_period ?? 0, c.rotation_schedule ?? '', c.rotation_window ?? 0]);

export class RootRotation {
  private running?: Promise<{ private_key_id: string }>;
  private timer?: TimerHandle;
  private closed = false;
  private arming = Promise.resolve();

  constructor(
    private readonly state: CloudState,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly mountPath: string,
  ) {}

  /** Rotates now, alone with the config (state.exclusive); concurrent calls share one rotation. */
  rotate(trigger: 'manual' | 'automated'): Promise<{ private_key_id: string }> {
    this.running ??= this.state.exclusive(() => this.doRotate(trigger)).finally(() => (this.running = undefined));
    return this.running;
  }

  private async doRotate(trigger: string): Promise<{ private_key_id: string }> {
    const cfg = await this.state.config();
    if (!cfg.credentials) {
      throw Errors.badRequest(
        'configuration does not have credentials - this endpoint only works with user-provided JSON credentials explicitly provided via the config/ endpoint' +
          (usesFederation(cfg) ? ' (workload identity federation uses no key, so there is nothing to rotate)' : ''),
      );
    }
    const old = cfg.credentials;
    let text: string;
    try {
      text = await this.state.clientFor(cfg).createServiceAccountKey(old.client_email);
    } catch (e) {
      throw upstream(`failed to create new key: ${message(e)}; the current key ${JSON.stringify(old.private_key_id)} is unchanged and still in use`);
    }
    let fresh;
    try {
      fresh = parseServiceAccountKey(text);
    } catch (e) {
      throw upstream(`api returned invalid credentials: ${message(e)}; the current key ${JSON.stringify(old.private_key_id)} is unchanged and still in use`);
    }
    // Config writes wait for the rotation (state.exclusive): the config read above is still current.
    const next: StoredCloudConfig = { ...cfg, credentials: fresh };
    await this.state.saveConfig(next);
    await this.record({ last_rotation: this.clock.now() });
    this.log.info('cloud auth root credentials rotated', { mount: this.mountPath, trigger, private_key_id: fresh.private_key_id });
    try {
      await this.state.clientFor(next).deleteServiceAccountKey(old.project_id, old.client_email, old.private_key_id);
    } catch (e) {
      throw upstream(
        `failed to delete old service account key (${JSON.stringify(old.private_key_id)}) - the new service account key (${JSON.stringify(fresh.private_key_id)}) is active, but the old one still exists: ${message(e)}`,
      );
    }
    return { private_key_id: fresh.private_key_id };
  }

  private async record(change: RotationRecord): Promise<RotationRecord> {
    const merged = { ...((await this.state.storage.get<RotationRecord>(RECORD_KEY)) ?? {}), ...change };
    await this.state.storage.put(RECORD_KEY, merged);
    return merged;
  }

  /** (Re)computes the next automated rotation from the stored config; call after every config change. */
  rearm(): Promise<void> {
    this.arming = this.arming.then(() => this.arm()).catch((e) => this.log.warn('cloud auth rotation schedule not armed', { mount: this.mountPath, error: message(e) }));
    return this.arming;
  }

  private async arm(): Promise<void> {
    this.timer?.cancel();
    this.timer = undefined;
    if (this.closed) return;
    const cfg = await this.state.config();
    if (!cfg.credentials || !automatedRotationActive(cfg)) return;
    const now = this.clock.now();
    let rec = (await this.state.storage.get<RotationRecord>(RECORD_KEY)) ?? {};
    if (rec.basis !== basisOf(cfg)) rec = await this.record({ basis: basisOf(cfg), since: now });
    let due: number | undefined;
    if (cfg.rotation_period) {
      // A period stored before the minimum existed still waits at least the minimum.
      due = Math.max(rec.last_rotation ?? 0, rec.since ?? now) + Math.max(cfg.rotation_period, MIN_ROTATION_PERIOD_SECONDS) * 1000;
    } else if (cfg.rotation_schedule) {
      const schedule = parseCron(cfg.rotation_schedule);
      // A scheduled time missed (engine down, or a failed attempt) still counts within its window.
      const window = (cfg.rotation_window ?? 0) * 1000;
      const missed = window > 0 ? previousCronTime(schedule, now, window) : undefined;
      due = missed !== undefined && missed > (rec.last_rotation ?? 0) && missed >= (rec.since ?? 0) ? now : nextCronTime(schedule, now);
    }
    // The mount may have been disabled while the config was read.
    if (due === undefined || this.closed) return;
    this.timer = this.clock.setTimer(Math.max(0, due - now), () => void this.fire(cfg));
  }

  private async fire(cfg: StoredCloudConfig): Promise<void> {
    try {
      await this.rotate('automated');
      await this.rearm();
    } catch (e) {
      this.log.warn('automated cloud auth root rotation failed', { mount: this.mountPath, error: message(e) });
      // Retry soon: a period rotation until it succeeds, a scheduled one while its window is open.
      const window = (cfg.rotation_window ?? 0) * 1000;
      if (this.closed || (cfg.rotation_schedule && window === 0)) return void (await this.rearm());
      this.timer?.cancel();
      this.timer = this.clock.setTimer(RETRY_MS, () => void this.retry());
    }
  }

  private async retry(): Promise<void> {
    const cfg = await this.state.config();
    if (!cfg.credentials || !automatedRotationActive(cfg)) return;
    if (cfg.rotation_schedule) {
      const window = (cfg.rotation_window ?? 0) * 1000;
      if (previousCronTime(parseCron(cfg.rotation_schedule), this.clock.now(), window) === undefined) return void (await this.rearm());
    }
    await this.fire(cfg);
  }

  /** Stops the schedule; resolves once a rotation in progress has finished (its key saved or not). */
  async close(): Promise<void> {
    this.closed = true;
    this.timer?.cancel();
    await this.state.close();
  }
}
