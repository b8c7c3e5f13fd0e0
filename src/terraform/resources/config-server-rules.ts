// The server's own rules on a declared auth config, at plan: the decision is objects/auth-config.ts
// configServerProblems's (the one `keyward plan` makes); here each problem becomes an error on its
// attribute, before anything is written.

import { configServerProblems } from '../../reconcile/objects/auth-config';
import type { AttributePath, Diagnostic, ObjectValue } from '../plugin/contract';
import type { KeywardProviderContext } from './context';
import { errorAt } from './values';

/** `config` the declared config block; an attribute counts as declared when it is not null. */
export async function configServerDiagnostics(ctx: KeywardProviderContext, base: AttributePath, config: ObjectValue): Promise<Diagnostic[]> {
  if (!ctx.client) return [];
  const declared = Object.keys(config).filter((k) => config[k] !== null && config[k] !== undefined);
  let server;
  try {
    if ((await ctx.client.dialect()) !== 'vault') return [];
    server = await ctx.client.serverInfo();
  } catch {
    return []; // apply reports a server that cannot answer
  }
  return configServerProblems(server, declared).map(([field, m]) => errorAt([...base, field], `Invalid ${field}: not on OpenBao`, `${m}.`));
}
