// sys/health's query parameters, as Vault reads them: the status code to answer for each server
// state, and the flags that turn standby states into "ok". This engine is always initialized,
// unsealed and active, so the answer is activecode; every parameter is still validated.

import { Errors } from '../../schema/errors';

const CODE_PARAMS = ['activecode', 'standbycode', 'sealedcode', 'uninitcode', 'drsecondarycode', 'performancestandbycode', 'haunhealthycode', 'removedcode'] as const;
const FLAG_PARAMS = ['standbyok', 'perfstandbyok', 'drsecondaryok'] as const;

function code(query: URLSearchParams, name: string, fallback: number): number {
  const v = query.get(name);
  if (v === null) return fallback;
  // Vault parses with strconv.Atoi; a status line needs a final status code.
  if (!/^\d{3}$/.test(v.trim()) || Number(v) < 200 || Number(v) > 599) {
    throw Errors.badRequest(`invalid value for "${name}": ${JSON.stringify(v.slice(0, 40))} (use an HTTP status code from 200 to 599)`);
  }
  return Number(v);
}

function flag(query: URLSearchParams, name: string): void {
  const v = query.get(name);
  if (v === null) return;
  if (!['', '1', 't', 'T', 'true', 'TRUE', 'True', '0', 'f', 'F', 'false', 'FALSE', 'False'].includes(v)) {
    throw Errors.badRequest(`invalid value for "${name}": ${JSON.stringify(v.slice(0, 40))} (use true or false)`);
  }
}

/** The status sys/health answers with for this (active, unsealed) server; 400 on a bad parameter. */
export function healthStatus(query: URLSearchParams): number {
  let active = 200;
  for (const name of CODE_PARAMS) {
    const c = code(query, name, 200);
    if (name === 'activecode') active = c;
  }
  for (const name of FLAG_PARAMS) flag(query, name);
  return active;
}
