// The system route families with a lifecycle of their own (each registers itself here).

import type { SystemFamilyFactory } from '../route-family';
import { snapshotFamily } from '../snapshot/family';

export const systemFamilyFactories: SystemFamilyFactory[] = [snapshotFamily];
