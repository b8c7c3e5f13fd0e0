// Suites that drive Terraform through keyward's provider need bin/terraform-provider-keyward.js.
// Without it they fail with this message, never skip: a missing provider is a broken checkout,
// and a skipped suite would report green.

import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const PROVIDER_BIN = join(resolve(__dirname, '../..'), 'bin', 'terraform-provider-keyward.js');

/** Throws (failing the calling hook's tests) when the provider's entry point is missing. */
export function requireProviderBin(): void {
  if (!existsSync(PROVIDER_BIN)) {
    throw new Error(`${PROVIDER_BIN} is missing: this suite drives Terraform through keyward's provider. Restore it (git checkout -- bin/terraform-provider-keyward.js).`);
  }
}
