// The system route families with a lifecycle of their own (each registers itself here).

import type { SystemFamilyFactory } from '../backend';

export const systemFamilyFactories: SystemFamilyFactory[] = [];
