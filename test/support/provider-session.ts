// The keyward provider configured against a server, driven as Terraform would (TerraformDriver),
// with the requests it sends recorded: one helper for the resource tests instead of a `driver()`
// copy per file.

import { keywardProvider, type KeywardProviderContext } from '../../src/terraform/keyward-provider';
import type { ResourceHandler } from '../../src/terraform/plugin/contract';
import { TerraformDriver, recordRequests } from './terraform-driver';

export interface ProviderSessionOptions {
  /** The provider's environment: VAULT_ADDR and VAULT_TOKEN at least. */
  env: Record<string, string>;
  typeName: string;
  /** The provider block (fingerprint_salt, dialect, …). */
  config: Record<string, unknown>;
  /** Wraps the resource handler (to record its results, say). */
  wrap?: (h: ResourceHandler<KeywardProviderContext>) => ResourceHandler<KeywardProviderContext>;
}

export async function providerSession(o: ProviderSessionOptions) {
  const provider = keywardProvider({ env: o.env });
  const configured = await TerraformDriver.configure<KeywardProviderContext>(provider, o.typeName, o.config);
  const d = o.wrap ? new TerraformDriver(configured.ctx, o.wrap(configured.handler)) : configured;
  const sent = recordRequests(d.ctx.client!);
  /** What changed the server: every request but reads and lists (sent as GET ?list=true). */
  const writes = () => sent.filter((s) => !s.startsWith('GET ') && !s.startsWith('LIST '));
  return { d, sent, writes, reset: () => sent.splice(0), close: () => provider.stop!() };
}
