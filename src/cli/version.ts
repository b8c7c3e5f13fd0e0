// The package version for `keyward --version`, read from the package.json above this file (the
// source tree and the compiled dist/ sit at different depths below it).

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export function packageVersion(from = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'keyward' && pkg.version) return pkg.version;
    }
    if (dirname(dir) === dir) throw new Error(`keyward's package.json not found above ${from}`);
  }
}
