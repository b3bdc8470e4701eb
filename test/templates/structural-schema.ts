// Validates objects against a CRD's openAPIV3Schema the way the API server would: the very
// pipeline kerf validates with (src/model/schema.ts), so the CRDs and the validator are one truth.
// Paths are JSON pointers; an unknown or missing field is reported at the object that holds it.
import { shapeValidator, toJsonSchema, type StructuralSchema } from '../../src/model/schema.js';

export { toJsonSchema };
export type { StructuralSchema };

export interface SchemaProblem {
  /** JSON pointer of the offending value, e.g. `/spec/apply/maintenanceWindows`. */
  path: string;
  message: string;
}

/** A validator for one CRD version's openAPIV3Schema; it returns every problem, empty when valid. */
export function structuralValidator(schema: StructuralSchema): (value: unknown) => SchemaProblem[] {
  const validate = shapeValidator(schema);
  return (value) =>
    validate(value).map((issue) => {
      const path = issue.code === 'UnknownField' || issue.code === 'MissingField' ? issue.path.slice(0, -1) : issue.path;
      return { path: path.length === 0 ? '/' : `/${path.join('/')}`, message: issue.message };
    });
}
