// The auth method types this engine can mount (besides the built-in token store).

import type { AuthBackendFactory } from '../backend';
import { cloudAuthFactory } from './cloud/backend';

export const authMethodFactories: AuthBackendFactory[] = [cloudAuthFactory];
