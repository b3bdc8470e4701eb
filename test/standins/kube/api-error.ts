// Errors answered as metav1.Status bodies, with the reason/code pairs the real apiserver uses.

export interface StatusCause {
  reason: string;
  message: string;
  field?: string;
}

export interface StatusBody {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message: string;
  reason: string;
  details?: { name?: string; group?: string; kind?: string; causes?: StatusCause[]; retryAfterSeconds?: number };
  code: number;
}

export interface ResourceName {
  group: string;
  plural: string;
  kind: string;
}

export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusBody['details'],
  ) {
    super(message);
  }

  toStatus(): StatusBody {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      ...(this.details ? { details: this.details } : {}),
      code: this.code,
    };
  }
}

/** `pods "x"` or `deployments.apps "x"`, as apiserver messages name a resource. */
function qualified(resource: ResourceName): string {
  return resource.group ? `${resource.plural}.${resource.group}` : resource.plural;
}

export function notFound(resource: ResourceName, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${qualified(resource)} "${name}" not found`, {
    name,
    group: resource.group,
    kind: resource.plural,
  });
}

export function alreadyExists(resource: ResourceName, name: string): ApiError {
  return new ApiError(409, 'AlreadyExists', `${qualified(resource)} "${name}" already exists`, {
    name,
    group: resource.group,
    kind: resource.plural,
  });
}

export function conflict(resource: ResourceName, name: string, why: string): ApiError {
  return new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(resource)} "${name}": ${why}`, {
    name,
    group: resource.group,
    kind: resource.plural,
  });
}

export const STALE_OBJECT =
  'the object has been modified; please apply your changes to the latest version and try again';

export function invalid(resource: ResourceName, name: string, causes: StatusCause[]): ApiError {
  const kindName = resource.group ? `${resource.kind}.${resource.group}` : resource.kind;
  const list = causes.map((cause) => (cause.field ? `${cause.field}: ${cause.message}` : cause.message));
  const joined = list.length === 1 ? list[0] : `[${list.join(', ')}]`;
  return new ApiError(422, 'Invalid', `${kindName} "${name}" is invalid: ${joined}`, {
    name,
    group: resource.group,
    kind: resource.kind,
    causes,
  });
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

export function methodNotAllowed(message = 'the server does not allow this method on the requested resource'): ApiError {
  return new ApiError(405, 'MethodNotAllowed', message);
}

export function unsupportedMediaType(contentType: string): ApiError {
  return new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json (got ${contentType})`);
}

export function internalError(message: string): ApiError {
  return new ApiError(500, 'InternalError', `Internal error occurred: ${message}`, {
    causes: [{ reason: '', message }],
  });
}

/** The watch cache's answer for a resourceVersion older than its history. */
export function expired(requested: number, oldest: number): ApiError {
  return new ApiError(410, 'Expired', `too old resource version: ${requested} (${oldest})`);
}
