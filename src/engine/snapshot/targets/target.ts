// The one interface every snapshot destination implements (local directory and three object
// stores), plus the naming rules they share. All targets pass test/unit/engine/snapshot/conformance.

import type { Readable } from 'node:stream';
import type { StorageType } from '../../../schema/snapshot-config';

/** The object stores' per-request timeout when the config sets none. */
export const REQUEST_TIMEOUT_MS = 30_000;

export interface StoredObject {
  /** Name relative to the target's prefix (directory or key prefix). */
  name: string;
  size: number;
}

export interface SnapshotTarget {
  readonly storageType: StorageType;
  /** Where the object `name` lives, as status URLs show it (file://, http(s)://). */
  url(name: string): string;
  /**
   * Streams the `size` bytes of `open()` (called once, produced while they are sent) and makes
   * them visible as `name` only once complete: a failed, interrupted or aborted (`signal`) put
   * never leaves anything under `name`. A temporary object of a completed put (S3) may still be
   * being deleted when it resolves: cleanup() and close() wait for that.
   */
  put(name: string, open: () => Readable, size: number, signal: AbortSignal): Promise<void>;
  /** Objects directly under the prefix (no deeper levels), any name. */
  list(): Promise<StoredObject[]>;
  get(name: string): Promise<Readable>;
  /** Deletes `name`; deleting a missing object is not an error. */
  delete(name: string): Promise<void>;
  /** Deletes whatever a failed put of `name` may have left: the object and any temporary one. */
  discard(name: string): Promise<void>;
  /**
   * Removes leftovers of interrupted writes where the store keeps them (local temp files), and
   * waits for the deletes of temporary objects that puts started in the background.
   */
  cleanup(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Object stores whose own conditional write creates a small object only when the name is free
 * (S3 If-None-Match, GCS ifGenerationMatch=0, Azure If-None-Match). The snapshot agent keeps its
 * --state and leases through it; nothing else coordinates agents.
 */
export interface ExclusiveCreate {
  /** Creates `name` with `body`; false when it already exists (the store refused the write). */
  createIfAbsent(name: string, body: Buffer): Promise<boolean>;
}

/** `<file_prefix>-<unix ns>.snap`; the timestamp doubles as an increasing snapshot id. */
export function snapshotFileName(filePrefix: string, unixNs: bigint): string {
  return `${filePrefix}-${unixNs.toString()}.snap`;
}

/**
 * Where a target writes `name` before publishing it (local temp file, S3 temporary key): a dot
 * name that never matches a snapshot pattern, so retention and restore never take it for one.
 */
export function partialName(name: string): string {
  return `.${name}.partial`;
}

/** The snapshot name a partialName() stands for, or undefined. */
export function partialOf(name: string): string | undefined {
  return /^\.(.+)\.partial$/.exec(name)?.[1];
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Exactly this config's snapshots: `a` and `a-b` prefixes never match each other's files. */
export function snapshotNamePattern(filePrefix: string): RegExp {
  return new RegExp(`^${escapeRegExp(filePrefix)}-([0-9]+)\\.snap$`);
}

/** Cloud object key: path_prefix and name joined by exactly one "/", no leading "/". */
export function joinKey(prefix: string, name: string): string {
  const p = prefix.replace(/^\/+/, '');
  if (p === '') return name;
  return p.endsWith('/') ? p + name : `${p}/${name}`;
}

/** The key prefix under which a target lists its objects ("" or ending in "/"). */
export function listPrefix(prefix: string): string {
  const p = prefix.replace(/^\/+/, '');
  return p === '' || p.endsWith('/') ? p : `${p}/`;
}

/** Error text for a target failure: names the stage and the store's own message. */
export function describeStoreError(stage: string, storageType: StorageType, e: unknown): string {
  const err = e as { name?: string; message?: string; code?: unknown; $metadata?: { httpStatusCode?: number }; statusCode?: number };
  const status = err?.$metadata?.httpStatusCode ?? err?.statusCode ?? (typeof err?.code === 'number' ? err.code : undefined);
  const name = err?.name && err.name !== 'Error' ? `${err.name}: ` : '';
  return `${stage} ${storageType} failed: ${name}${err?.message ?? String(e)}${status ? ` (status ${status})` : ''}`;
}
