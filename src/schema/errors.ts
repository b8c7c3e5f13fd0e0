// The one error vocabulary: stable codes, each with an HTTP status. Handlers throw ApiError; the
// engine maps it to the `{"errors":[...]}` envelope, the client rebuilds it from a response.

export const errorCatalogue = {
  invalid_request: 400,
  malformed_json: 400,
  namespace_unavailable: 400,
  permission_denied: 403,
  edition_required: 403,
  not_found: 404,
  unsupported_path: 404,
  unsupported_operation: 405,
  payload_too_large: 413,
  unknown_fields: 422,
  internal: 500,
  upstream: 500,
  sealed: 503,
} as const;

export type ErrorCode = keyof typeof errorCatalogue;

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly errors: string[],
    status?: number,
  ) {
    super(errors.join('; ') || code);
    this.name = 'ApiError';
    this.status = status ?? errorCatalogue[code];
  }

  static isApiError(e: unknown): e is ApiError {
    return e instanceof Error && (e as { name?: string }).name === 'ApiError' && typeof (e as ApiError).status === 'number';
  }
}

/** Constructors for the errors every part raises, so texts stay identical everywhere. */
export const Errors = {
  badRequest: (...messages: string[]) => new ApiError('invalid_request', messages),
  permissionDenied: () => new ApiError('permission_denied', ['permission denied']),
  notFound: (...messages: string[]) => new ApiError('not_found', messages),
  unsupportedPath: () => new ApiError('unsupported_path', ['unsupported path']),
  unsupportedOperation: () => new ApiError('unsupported_operation', ['unsupported operation']),
  malformedJson: (detail: string) => new ApiError('malformed_json', [`failed to parse JSON input: ${detail}`]),
  payloadTooLarge: (limit: number) => new ApiError('payload_too_large', [`request body too large: the limit is ${limit} bytes`]),
  unknownFields: (names: string[]) =>
    new ApiError('unknown_fields', [
      `unknown fields: [${[...names]
        .sort()
        .map((n) => JSON.stringify(n))
        .join(' ')}]`,
    ]),
  namespaceUnavailable: () => new ApiError('namespace_unavailable', ['operation unavailable in namespaces']),
  editionRequired: (feature: string) =>
    new ApiError('edition_required', [`${feature} requires the enterprise or plus edition; this server runs the oss edition (set edition = "enterprise" in the server config)`]),
  internal: () => new ApiError('internal', ['internal error']),
};
