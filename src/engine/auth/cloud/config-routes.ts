// auth/<mount>/config: write (merge, validation per field) and read (never the private key).

import type { Route } from '../../backend';
import { reply } from '../../http/reply';
import { requestFields } from '../../http/request-fields';
import { applyConfigWrite, configReadShape, configWriteShape } from '../../../schema/cloud-config';
import type { CloudState } from './state';

export function configRoutes(state: CloudState): Route[] {
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
          const next = applyConfigWrite(await state.config(), values);
          await state.saveConfig(next);
          return reply.none();
        },
      },
    },
  ];
}
