// The contract server's HTTP plumbing: Vault's envelope, error bodies, field coercion and the
// strictness record (every unknown field or bad value lands in `problems`, which tests require empty).

import { randomUUID } from 'node:crypto';
import { parseDurationSeconds } from '../../../src/schema/duration';

export interface Reply {
  status: number;
  body?: unknown;
}

export interface Ctx {
  method: 'read' | 'list' | 'update' | 'delete';
  path: string;
  body: Record<string, unknown>;
  /** Unknown fields, wrong values: a contract violation by the client. Tests assert this is empty. */
  problem(msg: string): void;
}

/** Vault's response envelope (api-docs: every authenticated response). */
export function envelope(data: unknown, warnings: string[] | null = null, mountType = ''): Reply {
  return {
    status: 200,
    body: { request_id: randomUUID(), lease_id: '', renewable: false, lease_duration: 0, data, wrap_info: null, warnings, auth: null, mount_type: mountType },
  };
}

export const noContent: Reply = { status: 204 };
export const errors = (status: number, ...messages: string[]): Reply => ({ status, body: { errors: messages } });
/** Raw errors on authenticated paths are wrapped by Vault's multierror (cloud-auth.md 1.4). */
export const wrapped = (status: number, message: string): Reply => errors(status, `1 error occurred:\n\t* ${message}\n\n`);
export const unsupportedPath = (): Reply => wrapped(404, 'unsupported path');

/** Vault's 422 for unknown fields on the GCP auth method's config and role paths. */
export function rejectUnknown(ctx: Ctx, allowed: readonly string[]): Reply | undefined {
  const unknown = Object.keys(ctx.body)
    .filter((k) => !allowed.includes(k))
    .sort();
  if (unknown.length === 0) return undefined;
  ctx.problem(`${ctx.path}: unknown fields ${unknown.join(', ')}`);
  return wrapped(422, `unknown fields: [${unknown.map((u) => JSON.stringify(u)).join(' ')}]`);
}

/** Vault's warning for unknown fields on framework paths (sys/...). */
export function ignoredWarning(ctx: Ctx, allowed: readonly string[]): string[] | null {
  const unknown = Object.keys(ctx.body)
    .filter((k) => !allowed.includes(k))
    .sort();
  if (unknown.length === 0) return null;
  ctx.problem(`${ctx.path}: unrecognized parameters ${unknown.join(', ')}`);
  return [`Endpoint ignored these unrecognized parameters: [${unknown.join(' ')}]`];
}

export const asList = (v: unknown): string[] =>
  v === undefined || v === null || v === '' ? [] : (Array.isArray(v) ? v.map(String) : String(v).split(',')).map((s) => s.trim()).filter((s) => s !== '');
export const asBool = (v: unknown): boolean => v === true || v === 'true' || v === '1' || v === 't' || (typeof v === 'number' && v !== 0);
export const asSeconds = (v: unknown): number => (v === undefined || v === null || v === '' ? 0 : parseDurationSeconds(v));
export const asInt = (v: unknown): number => Number(v ?? 0);
