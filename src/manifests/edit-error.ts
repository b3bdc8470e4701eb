export type EditErrorCode =
  | 'InvalidYaml'
  | 'DocumentMismatch'
  | 'ContainerNotFound'
  | 'SharedAnchor'
  | 'RequestAboveLimit'
  | 'UnsupportedNode'
  /** A value (given or already in the file) that is not a Kubernetes quantity. */
  | 'InvalidQuantity'
  /** The re-parse of the edited text did not show exactly the requested change (a bug guard). */
  | 'VerifyFailed';

export interface EditErrorSubject {
  file: string;
  /** `Kind/name` of the target document. */
  object: string;
  container?: string;
  /** A `ResourceField` such as `limits.memory`, or the YAML key the problem sits at. */
  field?: string;
}

/** An edit kerf refuses to make; the text is never returned half-edited. */
export class EditError extends Error {
  readonly code: EditErrorCode;
  readonly file: string;
  readonly object: string;
  readonly container?: string;
  readonly field?: string;

  constructor(code: EditErrorCode, subject: EditErrorSubject, problem: string, options?: { cause?: unknown }) {
    super(`${describeSubject(subject)}: ${problem}`, options);
    this.name = 'EditError';
    this.code = code;
    this.file = subject.file;
    this.object = subject.object;
    if (subject.container !== undefined) this.container = subject.container;
    if (subject.field !== undefined) this.field = subject.field;
  }
}

function describeSubject({ file, object, container, field }: EditErrorSubject): string {
  const parts = [file, object];
  if (container !== undefined) parts.push(`container "${container}"`);
  if (field !== undefined) parts.push(field);
  return parts.join(' ');
}
