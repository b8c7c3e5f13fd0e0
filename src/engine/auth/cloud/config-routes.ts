// auth/<mount>/config: write (merge, validation per field; re-arms automated rotation) and read
// (never the private key); config/rotate-root replaces the configured key (see root-rotation.ts).

import type { Route } from '../../route-family';
import { reply } from '../../core/reply';
import { requestFields } from '../../core/request-fields';
import { applyConfigWrite, configReadShape, configWriteShape } from '../../../schema/cloud-config';
import type { CloudState } from './state';
import type { RootRotation } from './root-rotation';
import { checkEndpointOverrides, checkIdentityTokenTtl } from './config-guards';

export function configRoutes(state: CloudState, rotation: RootRotation): Route[] {
  return [
    {
      pattern: 'config',
      unknownFields: 'reject',
      operations: {
        read: async (ctx) => {
          requestFields(ctx, {});
          return reply.data(configReadShape(await state.config()));
        },
        update: async (ctx) => {
          const { values } = requestFields(ctx, configWriteShape);
          checkEndpointOverrides(ctx, values.custom_endpoint);
          // Merged into the config as it is once any rotation in progress has saved its key.
          await state.exclusive(async () => {
            const next = applyConfigWrite(await state.config(), values);
            checkIdentityTokenTtl(next, values, state.maxIdentityTokenTtl());
            await state.saveConfig(next);
          });
          await rotation.rearm();
          return reply.none();
        },
      },
    },
    {
      pattern: 'config/rotate-root',
      unknownFields: 'reject',
      operations: {
        update: async (ctx) => {
          requestFields(ctx, {});
          const out = await rotation.rotate('manual');
          await rotation.rearm();
          return reply.data(out);
        },
      },
    },
  ];
}
