// The CDK library the app synthesizes with: cdktf or its fork CDK Terrain (cdktn), which keep the
// same API and JSON. Loaded once, from the app's working directory first, so keyward's constructs
// extend the very classes (and share the token registry of) the app's own `App`. Every construct
// file imports the library through this module only.

import type * as Cdk from 'cdktf';
import type { ICustomSynthesis } from 'cdktf/lib/synthesize/synthesizer';
import type { IConstruct } from 'constructs';
import { dirname, join } from 'node:path';
import { preferredLibrary, type CdkLibrary } from './cdk-library';
import { synthError } from './synth-error';

export { preferredLibrary, type CdkLibrary } from './cdk-library';

function resolveFrom(lib: string): string | undefined {
  try {
    return require.resolve(lib, { paths: [process.cwd(), __dirname] });
  } catch {
    return undefined;
  }
}

function load(): { lib: CdkLibrary; cdk: typeof Cdk; addCustomSynthesis: (c: IConstruct, s: ICustomSynthesis) => void } {
  const lib = preferredLibrary(process.cwd(), (l) => resolveFrom(l) !== undefined);
  const entry = resolveFrom(lib);
  if (!entry) throw synthError(new Error('keyward/constructs needs cdktf (>= 0.21) or cdktn (>= 0.24) installed in the app: npm install cdktn (or cdktf)'));
  const cdk = require(entry) as typeof Cdk;
  // Not exported from the package root in either library (main is lib/index.js); the stack synthesizer calls it for custom files.
  const synth = require(join(dirname(entry), 'synthesize', 'synthesizer')) as {
    addCustomSynthesis: (c: IConstruct, s: ICustomSynthesis) => void;
  };
  return { lib, cdk, addCustomSynthesis: synth.addCustomSynthesis };
}

const loaded = load();

/** Which library was loaded (for messages and tests). */
export const cdkLibrary: CdkLibrary = loaded.lib;
export const addCustomSynthesis = loaded.addCustomSynthesis;
export const { DefaultTokenResolver, Lazy, StringConcat, TerraformProvider, TerraformResource, TerraformStack, TerraformVariable, Token, Tokenization } = loaded.cdk;
export type { ISynthesisSession, TerraformProvider as TerraformProviderType, TerraformStack as TerraformStackType, TerraformVariable as TerraformVariableType } from 'cdktf';
