// Entry of bin/terraform-provider-keyward.js: serves keyward's ProviderDefinition through the plugin
// host (src/terraform/plugin, which knows no provider of its own). It sits at the provider's root so
// that every import points down.
import { keywardProvider } from './keyward-provider';
import { serve } from './plugin/serve';
import { useRoleValidityFile } from './resources/role-validity-file';

// The build's warm-up before it writes the bundle's code cache (the bundle's exports are this module's).
export { warmUp } from './provider-warm-up';

/** `build.stamp`: the bundle's SHA-256 when it runs as the built bundle (names the role validity file). */
export function main(build: { stamp?: string } = {}): void {
  if (build.stamp) useRoleValidityFile(build.stamp);
  serve(keywardProvider()).catch((err: unknown) => {
    process.stderr.write(`terraform-provider-keyward: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
