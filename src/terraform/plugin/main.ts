// Entry of bin/terraform-provider-keyward.js: serves keyward's ProviderDefinition.
import { keywardProvider } from '../keyward-provider';
import { serve } from './serve';

// The build's warm-up before it writes the bundle's code cache (the bundle's exports are this module's).
export { warmUp } from '../provider-warm-up';

export function main(): void {
  serve(keywardProvider()).catch((err: unknown) => {
    process.stderr.write(`terraform-provider-keyward: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
