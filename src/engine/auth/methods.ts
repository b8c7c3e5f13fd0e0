// The auth method types this engine can mount (besides the built-in token store).

import type { AuthMethodFactory } from '../route-family';
import { cloudAuthFactory } from './cloud/method';

export const authMethodFactories: AuthMethodFactory[] = [cloudAuthFactory];
