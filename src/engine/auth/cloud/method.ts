// The `cloud` auth method: a factory the engine mounts at any path. Route families live in one
// module each (config, roles, role edits, login); renewal re-checks role and identity.

import type { AuthMethodFactory, AuthMethodInit, AuthMethod } from '../../route-family';
import { CloudState, type CloudStateOptions } from './state';
import { configRoutes } from './config-routes';
import { roleRoutes } from './role-routes';
import { roleEditRoutes } from './role-edit-routes';
import { loginRoutes } from './login-routes';
import { renewCloudToken } from './renew';
import { RootRotation } from './root-rotation';

export const CLOUD_AUTH_TYPE = 'cloud';

export function createCloudAuthMethod(init: AuthMethodInit, extra: Partial<CloudStateOptions> = {}): AuthMethod {
  const state = new CloudState(init.storage, { clock: init.clock, env: init.env, mount: init.mount, identityTokens: init.identityTokens, ...extra });
  const rotation = new RootRotation(state, init.clock, init.log, init.mount.path);
  // Arms automated rotation when the stored config asks for it (failures are logged, not thrown).
  void rotation.rearm();
  return {
    routes: [...configRoutes(state, rotation), ...roleEditRoutes(state), ...roleRoutes(state), ...loginRoutes(state)],
    renew: (ctx) => renewCloudToken(state, ctx),
    close: () => rotation.close(),
  };
}

export const cloudAuthFactory: AuthMethodFactory = {
  type: CLOUD_AUTH_TYPE,
  create: (init) => createCloudAuthMethod(init),
};
