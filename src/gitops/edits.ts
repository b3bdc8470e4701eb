// From pull-request decisions to file edits: one change set drives the edit, the commit message,
// the PR body and the outputs (as in Flux image-automation's result type).
import type { Decision, PlanError } from '../model/types.js';
import type { RepoIndex } from '../manifests/scan.js';
import { workloadKey } from '../manifests/scan.js';
import { editResources, EditError, type ResourceEdit } from '../manifests/edit-resources.js';

export interface FileEdit {
  path: string;
  before: string;
  after: string;
}

export interface EditPlan {
  edits: FileEdit[];
  /** The decisions whose changes all landed in `edits`. */
  applied: Decision[];
  errors: PlanError[];
}

/**
 * Applies the changes of `decisions` (pull-request ones only) to the scanned file texts. A
 * decision whose edit is refused leaves its file as it was and becomes an error entry; the
 * others go on.
 */
export function planEdits(index: RepoIndex, decisions: readonly Decision[]): EditPlan {
  const texts = new Map<string, string>();
  const applied: Decision[] = [];
  const errors: PlanError[] = [];
  for (const decision of decisions) {
    if (decision.action !== 'pull-request' || decision.changes.length === 0) continue;
    const workload = index.workloads.get(workloadKey(decision.target));
    if (!workload) continue;
    const { file, document } = workload.source;
    const before = texts.get(file) ?? index.files.get(file)?.text;
    if (before === undefined) continue;
    const edits: ResourceEdit[] = decision.changes.map(({ container, field, to }) => ({ container, field, to }));
    try {
      texts.set(file, editResources(before, { document, kind: workload.ref.kind, name: workload.source.name }, edits, file));
      applied.push(decision);
    } catch (error) {
      if (!(error instanceof EditError)) throw error;
      errors.push({ file, object: workloadKey(decision.target), ...(error.field !== undefined && { field: error.field }), message: error.message });
    }
  }
  const edits = [...texts]
    .map(([path, after]) => ({ path, before: index.files.get(path)?.text ?? '', after }))
    .filter((edit) => edit.before !== edit.after);
  return { edits, applied, errors };
}
