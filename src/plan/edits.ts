// From pull-request decisions to file edits, byte-exact; a branch's ChangeSet
// (src/reconcile/change-set.ts) carries them with its commit message, PR and status.
import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import type { Change, Decision, HelmValuesSource, PlanError, ResourceName, Workload } from '../model/types.js';
import { editHelmValues } from '../manifests/helm/values-edit.js';
import type { RepoIndex } from '../manifests/scan.js';
import { workloadKey } from '../util/workload-key.js';
import { EditError } from '../manifests/edit-error.js';
import { ResourceFileEditor, type DocumentTarget, type ResourceEdit } from '../manifests/edit-resources.js';
import type { DocumentSketch } from '../manifests/edit-sketch.js';
import { KustomizeError } from '../manifests/kustomize-error.js';
import type { KustomizeGraph } from '../manifests/kustomize-graph.js';
import { addPatchToKustomization, KERF_PATCH_FILE, overlayPatchTargets, renderOverlayPatch, withPatchTarget, type ContainerOrder, type OverlayPatchContainer, type OverlayPatchTarget, type PatchTargets } from '../manifests/kustomize-overlay-patch.js';
import type { EditDecision } from '../manifests/kustomize-resolve.js';
import { editedFile, resolveField } from '../manifests/kustomize-values.js';

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

/** A change kerf cannot write where kustomize takes the value from (e.g. a JSON 6902 patch of the root). */
export class UnsupportedSourceError extends Error {
  readonly code = 'UnsupportedSource';
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * The text an index built in memory (not from a repo on disk) holds for a file. A scanned file
 * with a broken document keeps its screened text (other documents blanked out), never written back.
 */
function heldText(index: RepoIndex, path: string): string | undefined {
  const scanned = index.files.get(path);
  return scanned?.broken === undefined ? scanned?.text : undefined;
}

/** A file as a decision sees it: an editor over its text, and the documents the decision edited. */
interface Staged {
  editor: ResourceFileEditor;
  documents: Map<number, string>;
}

/**
 * Files as edited so far. Resource edits of one file share one editor (one parse, one assembly at
 * the end, however many workloads the file holds); a decision's edits see each other's, and land
 * together or not at all.
 */
class Workspace {
  private readonly committed = new Map<string, ResourceFileEditor>();
  /** The decision being placed (its place in the list): each file remembers the one it was first kept for. */
  decision = 0;
  private readonly keptFirstBy = new Map<string, number>();
  private staged = new Map<string, Staged>();
  /** The last text kerf made of each overlay patch file, with its targets: the next workload's edit need not parse it again. */
  private readonly patchTargets = new Map<string, { text: string; targets: PatchTargets }>();
  constructor(
    private readonly read: (path: string) => string | undefined,
    /** What the scan saw of a file: how many documents (so its editor parses only those it edits) and their sketches. */
    private readonly scanned: (path: string) => { documents: number; sketches?: readonly (DocumentSketch | undefined)[] } | undefined,
    /** Whether the texts are wanted (see ResourceFileEditor's `verify`). */
    private readonly verify: boolean,
  ) {}

  private stage(path: string): Staged | undefined {
    let staged = this.staged.get(path);
    if (!staged) {
      let editor = this.committed.get(path);
      if (!editor) {
        const text = this.read(path);
        if (text === undefined) return undefined;
        const seen = this.scanned(path);
        editor = new ResourceFileEditor(text, path, { ...(seen && { documents: seen.documents }), verify: this.verify, ...(seen?.sketches && { sketches: seen.sketches }) });
        this.keep(path, editor);
      }
      staged = { editor, documents: new Map() };
      this.staged.set(path, staged);
    }
    return staged;
  }

  editDocument(file: string, target: DocumentTarget, edits: ResourceEdit[]): void {
    const staged = this.stage(file);
    if (!staged) throw new UnsupportedSourceError(`${file}: not found in the scanned repo`);
    staged.documents.set(target.document, staged.editor.edit(target, edits, staged.documents.get(target.document)));
  }

  text(path: string): string | undefined {
    const staged = this.stage(path);
    return staged?.editor.render(staged.documents);
  }

  write(path: string, text: string): void {
    this.staged.set(path, { editor: new ResourceFileEditor(text, path), documents: new Map() });
  }

  /** kerf's overlay patch `path` with `target`'s containers set (see renderOverlayPatch). */
  writeOverlayPatch(path: string, target: OverlayPatchTarget, containers: OverlayPatchContainer[], order: ContainerOrder): void {
    const text = this.text(path);
    const known = this.patchTargets.get(path);
    // Keyed by the text itself: a discarded decision's patch is not what the file holds.
    const targets = text === undefined ? undefined : known?.text === text ? known.targets : overlayPatchTargets(text, path);
    const patched = renderOverlayPatch(text, target, containers, { order, file: path, ...(targets && { targets }) });
    this.patchTargets.set(path, { text: patched, targets: withPatchTarget(targets, target) });
    this.write(path, patched);
  }

  private keep(path: string, editor: ResourceFileEditor): void {
    if (!this.keptFirstBy.has(path)) this.keptFirstBy.set(path, this.decision);
    this.committed.set(path, editor);
  }

  /** Keeps the current decision's edits; `discard` drops them. */
  commit(): void {
    for (const [path, { editor, documents }] of this.staged) {
      for (const [document, slice] of documents) editor.commit(document, slice);
      this.keep(path, editor);
    }
    this.staged = new Map();
  }

  discard(): void {
    this.staged = new Map();
  }

  /** Lets a file go: no later decision edits it, and its text is not wanted. */
  forget(path: string): void {
    this.committed.delete(path);
    this.keptFirstBy.delete(path);
    this.patchTargets.delete(path);
  }

  /** Every file a committed decision touched, with its text now and the decision it was first kept for. */
  *results(): IterableIterator<[string, string, number]> {
    for (const [path, editor] of this.committed) yield [path, editor.render(), this.keptFirstBy.get(path) as number];
  }
}

function toResourceEdits(changes: readonly Change[]): ResourceEdit[] {
  return changes.map(({ container, field, to }) => ({ container, field, to }));
}

function editHelm(work: Workspace, source: HelmValuesSource, edits: ResourceEdit[]): void {
  const text = work.text(source.file);
  if (text === undefined) throw new UnsupportedSourceError(`${source.file}: not found in the scanned repo`);
  work.write(source.file, editHelmValues(text, source, edits));
}

/** A container kerf leaves alone because one of its values cannot be written where kustomize takes it from. */
export interface ContainerRefusal {
  container: string;
  message: string;
}

function refusalOf(graph: KustomizeGraph, workload: Workload, change: Change): string | undefined {
  const resolution = resolveField(graph, workload, change.container, change.field);
  const object = `${workloadKey(workload.ref)} container ${change.container} ${change.field}`;
  if (resolution.status !== 'resolved') return `${object}: ${resolution.reason}`;
  const { decision } = resolution;
  if (decision.kind === 'unsupported') return `${object}: ${decision.reason}`;
  // Deleting the key from a patch would let the base's value through again.
  if (decision.kind === 'edit-file' && change.to === null && resolution.source.kind === 'document' && resolution.source.role === 'patch') {
    return `${object}: the value comes from the kustomize patch ${decision.file}; removing it there would bring back the value beneath, so kerf leaves this removal to a person`;
  }
  return undefined;
}

/**
 * The changes kerf can write for the workload, and the containers it cannot place (all of a
 * container's changes go, so its requests and limits never land half-changed). `plan` and `write`
 * both use it, so what `plan` proposes `write` can place.
 */
function placeChanges(index: RepoIndex, workload: Workload, changes: readonly Change[]): { placed: Change[]; refused: ContainerRefusal[] } {
  const graph = index.kustomize;
  if (graph === undefined || workload.source.root === undefined) return { placed: [...changes], refused: [] };
  const refused = new Map<string, string>();
  for (const change of changes) {
    if (refused.has(change.container)) continue;
    const message = refusalOf(graph, workload, change);
    if (message !== undefined) refused.set(change.container, message);
  }
  return {
    placed: changes.filter((change) => !refused.has(change.container)),
    refused: [...refused].map(([container, message]) => ({ container, message })),
  };
}

/** Under kustomize, each field goes where its value really comes from: the defining file, or kerf's overlay patch. */
function editKustomized(work: Workspace, graph: KustomizeGraph, workload: Workload, changes: readonly Change[]): void {
  const documents = new Map<string, { decision: Extract<EditDecision, { kind: 'edit-file' }>; changes: Change[] }>();
  const overlays = new Map<string, { decision: Extract<EditDecision, { kind: 'overlay-patch' }>; containers: Map<string, OverlayPatchContainer> }>();
  for (const change of changes) {
    const resolution = resolveField(graph, workload, change.container, change.field);
    if (resolution.status !== 'resolved' || resolution.decision.kind === 'unsupported') throw new UnsupportedSourceError(refusalOf(graph, workload, change));
    const { decision } = resolution;
    if (decision.kind === 'edit-file') {
      const key = `${decision.file}#${decision.document}`;
      const entry = documents.get(key) ?? { decision, changes: [] };
      entry.changes.push(change);
      documents.set(key, entry);
      continue;
    }
    const path = editedFile(resolution) as string;
    const entry = overlays.get(path) ?? { decision, containers: new Map() };
    const init = workload.containers.find((c) => c.name === change.container)?.init === true;
    const container = entry.containers.get(change.container) ?? { name: change.container, ...(init && { init }) };
    const [group, resource] = change.field.split('.') as ['requests' | 'limits', ResourceName];
    container[group] = { ...container[group], [resource]: change.to };
    entry.containers.set(change.container, container);
    overlays.set(path, entry);
  }
  for (const { decision, changes: documentChanges } of documents.values()) {
    work.editDocument(decision.file, { document: decision.document, kind: decision.documentKind, name: decision.documentName }, toResourceEdits(documentChanges));
  }
  for (const [path, { decision, containers }] of overlays) {
    work.writeOverlayPatch(path, decision.target, [...containers.values()], decision.order);
    const kustomization = work.text(decision.kustomization);
    if (kustomization === undefined) throw new UnsupportedSourceError(`${decision.kustomization}: not found in the scanned repo`);
    work.write(decision.kustomization, addPatchToKustomization(kustomization, undefined, decision.kustomization));
  }
}

/** The file a workload's edit goes into when that is its own document: not rendered by kustomize, not Helm values (as `planEdits` branches). */
function ownDocumentFile(index: RepoIndex, workload: Workload): string | undefined {
  return (index.kustomize && workload.source.root !== undefined) || workload.helm ? undefined : workload.source.file;
}

/**
 * The files only workloads' own documents are edited in, with the decisions (by their place in
 * `decisions`) that edit each, in the order first edited: kustomize edits what a kustomization
 * names (and its overlay patches), Helm edits values files, and those are not among them. Each of
 * these files is edited by its decisions alone, so it can be done on its own, in any order
 * against the others.
 */
function separateFiles(index: RepoIndex, decisions: readonly Decision[]): Map<string, number[]> {
  const files = new Map<string, number[]>();
  const shared = new Set<string>();
  decisions.forEach((decision, i) => {
    const workload = index.workloads.get(workloadKey(decision.target));
    if (!workload) return;
    const own = ownDocumentFile(index, workload);
    if (own !== undefined) files.set(own, [...(files.get(own) ?? []), i]);
    else if (workload.helm) shared.add(workload.helm.file);
  });
  for (const file of files.keys()) {
    if (shared.has(file) || index.files.get(file)?.named || posix.basename(file) === KERF_PATCH_FILE) files.delete(file);
  }
  return files;
}

/**
 * The order plan's dry run places `decisions` in (by their places), and after which one each
 * separate file is let go: the others in the plan's order (kerf's overlay patches follow it), then
 * each separate file's decisions together. In the plan's order a file's workloads are far apart
 * (by namespace, kind, name), so its text and edits lived through many young-generation
 * collections and filled the old one; placed together they die young. Separate files are edited by
 * their own decisions alone, so the outcomes are the same.
 */
function dryRunOrder(index: RepoIndex, decisions: readonly Decision[]): { at: number; done?: string }[] {
  const separate = separateFiles(index, decisions);
  const grouped = new Set([...separate.values()].flat());
  const order: { at: number; done?: string }[] = decisions.flatMap((_, at) => (grouped.has(at) ? [] : [{ at }]));
  for (const [path, edited] of separate) edited.forEach((at, k) => order.push({ at, ...(k === edited.length - 1 && { done: path }) }));
  return order;
}

/**
 * Applies the changes of `decisions` (pull-request ones only) to the scanned file texts. A
 * decision whose edit is refused leaves every file as it was and becomes an error entry; the
 * others go on. With `files: false` only which decisions land and what is refused is wanted
 * (plan's dry run): `edits` is empty, a manifest is let go once the last decision that edits it
 * is done (see dryRunOrder), so memory does not grow with every file edited, and edited texts are
 * not re-parsed to verify them (nothing is written; `write` verifies every edit it writes).
 */
export function planEdits(index: RepoIndex, decisions: readonly Decision[], options: { files?: boolean } = {}): EditPlan {
  const { outcomes, edits } = editDecisions(index, decisions, options.files ?? true);
  return { edits: edits.map(fileEdit), ...flatten(outcomes) };
}

/**
 * One separate file's decisions (see separateFiles), to be placed on their own, in a worker: the
 * file, the decisions that edit it (each with its place in the whole list) and their workloads.
 */
export interface SeparateFileJob {
  root: string;
  path: string;
  /** How many documents the scan found in it. */
  documents: number;
  decisions: { at: number; decision: Decision; workload: Workload }[];
}

export interface SeparateFileResult {
  outcomes: DecisionOutcome[];
  edit?: FileEdit;
}

/** The worker's side of planEditsAcross: a job's decisions placed as planEdits places them. */
export function editSeparateFile(job: SeparateFileJob): SeparateFileResult {
  const index: RepoIndex = {
    root: job.root,
    files: new Map([[job.path, { documents: new Array<null>(job.documents).fill(null), lines: [] }]]),
    workloads: new Map(job.decisions.map(({ workload }) => [workloadKey(workload.ref), workload])),
    pdbs: [],
    hpas: [],
    policies: [],
    recommendations: [],
    errors: [],
    conflicts: new Map(),
  };
  const { outcomes, edits } = editDecisions(index, job.decisions.map(({ decision }) => decision), true);
  const [edit] = edits;
  return { outcomes, ...(edit && { edit: fileEdit(edit) }) };
}

/**
 * Below this many decisions in separate files, starting workers costs more than it saves: each
 * starts cold, and on two cores the edits' parses gain ~1.3x, not 2x. Measured on two cores, with
 * ~630 and ~1,260 such decisions the edits took 0.25 s longer on workers, with ~3,160 0.15 s less.
 */
const DECISIONS_WORTH_WORKERS = 2500;

/**
 * planEdits, the edited files wanted (write), with the separate files' decisions placed by `run`
 * (workers) while this thread places the others: the same outcomes and edits, in the same order.
 * Plan's dry run has no use for workers: it places most edits from the scan's sketches.
 */
export async function planEditsAcross(
  index: RepoIndex,
  decisions: readonly Decision[],
  /** `fewest`: below this many decisions in separate files this thread places them all. */
  options: { fewest?: number },
  run: (jobs: SeparateFileJob[]) => Promise<SeparateFileResult[]>,
): Promise<EditPlan> {
  const jobs: SeparateFileJob[] = [];
  for (const [path, edited] of separateFiles(index, decisions)) {
    const items = edited.map((at) => {
      const decision = decisions[at] as Decision;
      return { at, decision, workload: index.workloads.get(workloadKey(decision.target)) as Workload };
    });
    jobs.push({ root: index.root, path, documents: index.files.get(path)?.documents.length ?? 0, decisions: items });
  }
  const away = new Set(jobs.flatMap((job) => job.decisions.map(({ at }) => at)));
  if (away.size === 0 || away.size < (options.fewest ?? DECISIONS_WORTH_WORKERS)) return planEdits(index, decisions);
  const here = decisions.flatMap((_, at) => (away.has(at) ? [] : [at]));
  // Started first: the workers place theirs while this thread places the rest.
  const results = run(jobs);
  const local = editDecisions(index, here.map((at) => decisions[at] as Decision), true);
  const outcomes: DecisionOutcome[] = new Array<DecisionOutcome>(decisions.length);
  here.forEach((at, k) => (outcomes[at] = local.outcomes[k] as DecisionOutcome));
  const edits: OrderedEdit[] = local.edits.map((edit) => ({ ...edit, first: here[edit.first] as number }));
  (await results).forEach((result, j) => {
    const job = jobs[j] as SeparateFileJob;
    job.decisions.forEach(({ at, decision }, k) => {
      const outcome = result.outcomes[k] as DecisionOutcome;
      // Landed whole, it is the decision itself, as planEdits gives it, not the worker's copy.
      outcomes[at] = outcome.applied?.changes.length === decision.changes.length ? { ...outcome, applied: decision } : outcome;
    });
    if (result.edit) edits.push({ ...result.edit, first: (job.decisions[0] as { at: number }).at });
  });
  return { edits: edits.sort((a, b) => a.first - b.first).map(fileEdit), ...flatten(outcomes) };
}

/** What became of one proposed decision: as it landed (without the containers refused), if it did, and the errors met. */
export interface DecisionOutcome {
  applied?: Decision;
  errors: PlanError[];
}

/** A file edit, with the decision (by its place in the list) the file was first edited for. */
type OrderedEdit = FileEdit & { first: number };

function fileEdit({ path, before, after }: FileEdit): FileEdit {
  return { path, before, after };
}

function flatten(outcomes: readonly DecisionOutcome[]): Pick<EditPlan, 'applied' | 'errors'> {
  return { applied: outcomes.flatMap((outcome) => outcome.applied ?? []), errors: outcomes.flatMap((outcome) => outcome.errors) };
}

function editDecisions(index: RepoIndex, decisions: readonly Decision[], files: boolean): { outcomes: DecisionOutcome[]; edits: OrderedEdit[] } {
  // The scan keeps no texts: the files to edit are read again, as they are now.
  const originals = new Map<string, string | undefined>();
  const read = (path: string): string | undefined => {
    if (!originals.has(path)) originals.set(path, index.files.has(path) ? (readText(join(index.root, path)) ?? heldText(index, path)) : undefined);
    return originals.get(path);
  };
  const work = new Workspace(
    read,
    (path) => {
      const scanned = index.files.get(path);
      return scanned && { documents: scanned.documents.length, ...(scanned.sketches && { sketches: scanned.sketches }) };
    },
    files,
  );
  // Each outcome goes to its decision's place, whatever the order they are placed in.
  const outcomes = new Array<DecisionOutcome>(decisions.length);
  for (const { at, done } of files ? decisions.map((_, at) => ({ at, done: undefined })) : dryRunOrder(index, decisions)) {
    work.decision = at;
    outcomes[at] = placeDecision(decisions[at] as Decision);
    if (done !== undefined) {
      work.forget(done);
      originals.delete(done);
    }
  }
  if (!files) return { outcomes, edits: [] };
  const edits = [...work.results()]
    .map(([path, after, first]) => ({ path, before: read(path) ?? '', after, first }))
    .filter((edit) => edit.before !== edit.after);
  return { outcomes, edits };

  function placeDecision(proposed: Decision): DecisionOutcome {
    const errors: PlanError[] = [];
    if (proposed.action !== 'pull-request' || proposed.changes.length === 0) return { errors };
    const workload = index.workloads.get(workloadKey(proposed.target));
    if (!workload) return { errors };
    const { placed, refused } = placeChanges(index, workload, proposed.changes);
    for (const { container, message } of refused) {
      errors.push({ code: 'UnplaceableContainer', file: workload.source.file, object: `${workloadKey(proposed.target)} container ${container}`, message });
    }
    // A container whose edit is refused is left out and the rest tried again: one bad container
    // never costs the recommendation's others. A failed try's staged edits are discarded.
    let changes = placed;
    while (changes.length > 0) {
      const decision = changes.length === proposed.changes.length ? proposed : { ...proposed, changes };
      try {
        if (index.kustomize && workload.source.root !== undefined) editKustomized(work, index.kustomize, workload, decision.changes);
        else if (workload.helm) editHelm(work, workload.helm, toResourceEdits(decision.changes));
        else work.editDocument(workload.source.file, { document: workload.source.document, kind: workload.ref.kind, name: workload.source.name }, toResourceEdits(decision.changes));
        work.commit();
        return { applied: decision, errors };
      } catch (error) {
        work.discard();
        if (!(error instanceof EditError || error instanceof KustomizeError || error instanceof UnsupportedSourceError)) throw error;
        errors.push({
          code: error.code,
          file: error instanceof EditError ? error.file : workload.source.file,
          object: workloadKey(decision.target),
          ...(error instanceof EditError && error.field !== undefined && { field: error.field }),
          message: error.message,
        });
        const container = error instanceof EditError ? error.container : undefined;
        const rest = container === undefined ? [] : changes.filter((change) => change.container !== container);
        changes = rest.length < changes.length ? rest : [];
      }
    }
    return { errors };
  }
}
