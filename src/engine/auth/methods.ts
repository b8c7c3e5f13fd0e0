// The auth method types this engine can mount (besides the built-in token store).

import type { AuthBackendFactory } from '../route-family';
import { cloudAuthFactory } from './cloud/method';

export const authMethodFactories: AuthBackendFactory[] = [cloudAuthFactory];
