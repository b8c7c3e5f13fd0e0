// What the build runs once, in-process, before it writes the provider bundle's code cache
// (scripts/bundle-provider.js): the code a provider walk runs after its start (each resource's
// validators, zod included; configure; the server client and its HTTP stack), so that V8's cache
// holds it compiled and each of Terraform's three or four provider starts per command takes it
// from the cache instead of compiling it. Never sends a request: the client is made, not used.
import type { BlockSchema, ObjectValue } from './plugin/contract';
import { keywardProvider } from './keyward-provider';

/** Every attribute of a block null, every block empty: a config that names nothing. */
function nullConfig(block: BlockSchema): ObjectValue {
  const config: ObjectValue = Object.fromEntries(Object.keys(block.attributes).map((n) => [n, null]));
  for (const [n, b] of Object.entries(block.blocks ?? {})) config[n] = b.nesting === 'single' ? null : b.nesting === 'map' ? {} : [];
  return config;
}

export async function warmUp(): Promise<void> {
  const provider = keywardProvider({ env: { VAULT_TOKEN: 'warm-up' } });
  provider.validate?.(nullConfig(provider.schema));
  for (const r of provider.resources) {
    try {
      r.validate?.(nullConfig(r.schema));
    } catch {
      // A config naming nothing may be refused; what matters is the code it ran.
    }
  }
  const ctx = await provider.configure({ ...nullConfig(provider.schema), address: 'http://127.0.0.1:1' });
  void ctx.client;
  await provider.stop?.();
}
