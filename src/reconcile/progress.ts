// Apply progress: one self-updating status line on a terminal, plain lines otherwise (CI logs).
// Lines carry object ids, actions and error texts only, never field values.

import type { Action } from './model';

export interface Progress {
  start(total: number): void;
  done(id: string, action: Action, error?: unknown): void;
  /** A request is being retried (status 0 = connection failure). */
  retry?(what: string, status: number, attempt: number): void;
  finish(): void;
}

const PAST: Record<Action, string> = { 'no-op': 'unchanged', create: 'created', update: 'updated', replace: 'replaced', delete: 'deleted' };

const errText = (e: unknown) => (e instanceof Error ? e.message : String(e));

export function lineProgress(write: (line: string) => void): Progress {
  return {
    start: (total) => write(`Applying ${total} change${total === 1 ? '' : 's'}...`),
    done: (id, action, error) => write(error ? `${id}: ${action} failed: ${errText(error)}` : `${id}: ${PAST[action]}`),
    retry: (what, status, attempt) => write(`retrying ${what} (attempt ${attempt} got ${status === 0 ? 'no response' : `HTTP ${status}`})`),
    finish: () => undefined,
  };
}

export function ttyProgress(stream: NodeJS.WriteStream): Progress {
  let total = 0;
  let ok = 0;
  let failed = 0;
  let last = 0;
  const draw = (force = false) => {
    const now = Date.now();
    if (!force && now - last < 80) return;
    last = now;
    const width = 24;
    const filled = total === 0 ? width : Math.round(((ok + failed) / total) * width);
    stream.write(`\r\x1b[2K[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${ok + failed}/${total}${failed ? ` (${failed} failed)` : ''}`);
  };
  return {
    start: (t) => {
      total = t;
      draw(true);
    },
    done: (id, action, error) => {
      if (error) {
        failed++;
        stream.write(`\r\x1b[2K${id}: ${action} failed: ${errText(error)}\n`);
        draw(true);
      } else {
        ok++;
        draw();
      }
    },
    finish: () => {
      draw(true);
      stream.write('\n');
    },
  };
}

export const silentProgress: Progress = { start: () => undefined, done: () => undefined, finish: () => undefined };
