// Which CDK library an app uses, cdktf or its fork CDK Terrain (cdktn), decided without loading
// either: cdk.ts loads the one named here, and `keyward import` writes code for it.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type CdkLibrary = 'cdktf' | 'cdktn';

/** The library an app uses: the one its package.json names (cdktn wins a tie only when named alone). */
export function preferredLibrary(appDir: string, available: (lib: CdkLibrary) => boolean): CdkLibrary {
  const forced = process.env.KEYWARD_CDK_LIBRARY;
  if (forced === 'cdktf' || forced === 'cdktn') return forced;
  let named: CdkLibrary[] = [];
  const pkg = join(appDir, 'package.json');
  if (existsSync(pkg)) {
    try {
      const j = JSON.parse(readFileSync(pkg, 'utf8')) as Record<string, Record<string, string> | undefined>;
      const deps = { ...j.devDependencies, ...j.peerDependencies, ...j.dependencies };
      named = (['cdktf', 'cdktn'] as const).filter((l) => l in deps);
    } catch {
      // an unreadable package.json says nothing: fall through to what is installed
    }
  }
  if (named.length === 1 && available(named[0])) return named[0];
  return available('cdktf') ? 'cdktf' : 'cdktn';
}
