// The auth method types this engine can mount (besides the built-in token store).

import type { AuthBackendFactory } from '../backend';

export const authMethodFactories: AuthBackendFactory[] = [];
