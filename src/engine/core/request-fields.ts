// Reads a handler's fields from the request: coercion per field kind, and unknown fields either
// warned about (Vault's framework default) or refused with 422 (methods that are strict).

import type { RequestContext } from '../route-family';
import { Errors } from '../../schema/errors';
import { parseFields, unknownFieldsWarning, type FieldParseResult, type FieldShape } from '../../schema/fields';

export function requestFields<S extends FieldShape>(ctx: RequestContext, shape: S, unknown: 'warn' | 'reject' = ctx.unknownFields ?? 'warn'): FieldParseResult<S> {
  const result = parseFields(shape, ctx.body);
  // Path captures may be repeated in the body; the path wins, as in Vault.
  const stray = result.unknown.filter((n) => !(n in ctx.params));
  if (stray.length > 0) {
    if (unknown === 'reject') throw Errors.unknownFields(stray);
    ctx.warnings.push(unknownFieldsWarning(stray));
  }
  return result;
}
