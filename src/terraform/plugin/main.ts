// Entry of bin/terraform-provider-keyward.js: serves keyward's ProviderDefinition.
import { keywardProvider } from '../keyward-provider';
import { serve } from './serve';

export function main(): void {
  serve(keywardProvider()).catch((err: unknown) => {
    process.stderr.write(`terraform-provider-keyward: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
