// The server's configuration: dev defaults, or a config file (JSON or the HCL-like key = value
// form Vault uses for simple settings), validated with zod so a bad file names the bad field.

import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { DurationError, parseDurationSeconds } from '../schema/duration';

/** Seconds or a Go duration ("10s", "1m"), as Vault's listener reads its timeouts; more than 0. */
const timeout = (name: string) =>
  z.union([z.number(), z.string()]).transform((v, ctx) => {
    try {
      const s = parseDurationSeconds(v);
      if (s > 0) return s;
      ctx.addIssue({ code: 'custom', message: `${name} must be more than 0` });
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: e instanceof DurationError ? e.message : String(e) });
    }
    return z.NEVER;
  });

export const serverConfigSchema = z
  .object({
    listen: z.string().default('127.0.0.1:8200'),
    data_dir: z.string().min(1, 'data_dir is required: the directory for the database'),
    seal_key_file: z.string().min(1, 'seal_key_file is required: a file holding the 32-byte seal key'),
    edition: z.enum(['oss', 'enterprise', 'plus']).default('oss'),
    log_level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'off']).default('info'),
    max_request_bytes: z
      .number()
      .int()
      .positive()
      .default(1024 * 1024),
    cluster_name: z.string().default('keyward'),
    // The listener, with Vault's names (its tcp listener block).
    tls_cert_file: z.string().min(1).optional(),
    tls_key_file: z.string().min(1).optional(),
    tls_disable: z.boolean().default(false),
    http_read_header_timeout: timeout('http_read_header_timeout').default(10),
    http_read_timeout: timeout('http_read_timeout').default(30),
    /** The engine's own: open connections at most (Vault has no cap). */
    max_connections: z.number().int().positive().default(4096),
  })
  .strict();

export type ServerConfig = z.infer<typeof serverConfigSchema>;

/** Reads `key = value` lines (strings quoted, numbers bare, # comments) or a JSON object. */
function parseText(text: string): Record<string, unknown> {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) return JSON.parse(trimmed) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/(^|\s)(#|\/\/).*$/, '').trim();
    if (line === '') return;
    const m = /^([a-z_]+)\s*=\s*(.+)$/.exec(line);
    if (!m) throw new Error(`line ${i + 1}: expected key = value`);
    const v = m[2].trim();
    out[m[1]] = v.startsWith('"') ? JSON.parse(v) : /^\d+$/.test(v) ? Number(v) : v === 'true' ? true : v === 'false' ? false : v;
  });
  return out;
}

export function loadServerConfig(file: string): ServerConfig {
  let raw: Record<string, unknown>;
  try {
    raw = parseText(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`config file ${file}: ${(e as Error).message}`);
  }
  const r = serverConfigSchema.safeParse(raw);
  if (!r.success) {
    const problems = r.error.issues.map((i) => `${i.path.join('.') || '(file)'}: ${i.message}`);
    throw new Error(`config file ${file} is invalid:\n  ${problems.join('\n  ')}`);
  }
  return r.data;
}
