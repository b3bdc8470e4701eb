// `kerf-gitops doctor`: what would silently stop merged changes from landing or windows from
// holding, each with how to fix it. Pure over the scanned repo, the plan and what GitHub said.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORKLOAD_KINDS, type KerfConfig, type PlanError, type WindowSpec } from '../model/types.js';
import type { RepoIndex } from '../manifests/scan.js';
import { compileWindows, isOpen, nextOpening, type CompiledWindow } from '../rules/window.js';
import { compiledWindows } from '../rules/window-state.js';
import type { Plan } from './plan.js';
import { didYouMean } from '../util/did-you-mean.js';
import { matchesSelector } from '../rules/selector.js';
import { suggestedPaths, unmappedReleases } from '../manifests/helm/releases.js';
import { isObject, type Json } from '../util/json.js';
import { yamlDocumentData } from '../manifests/yaml-text.js';
import type { BranchProtection } from '../github/github.js';

export type FindingCheck =
  | 'argo-ignore-differences'
  | 'argo-sync-windows'
  | 'branch-protection'
  | 'helm-unmapped'
  | 'invalid-input'
  | 'invalid-window'
  | 'overlapping-windows'
  | 'missing-target'
  | 'policy-matches-nothing';

export interface Finding {
  check: FindingCheck;
  severity: 'error' | 'warning';
  /** The problem code of a validation problem (see the README). */
  code?: string;
  file?: string;
  line?: number;
  column?: number;
  field?: string;
  message: string;
  fix: string;
}

/** What the repository's rules say about the `kerf/window` check on the default branch. */
export interface DoctorInput {
  index: RepoIndex;
  plan: Plan;
  config: KerfConfig;
  now: Date;
  /** Absent when GitHub was not asked (no token or repository). */
  branchProtection?: BranchProtection;
}

/** Openings of each maintenance window that the window checks sample. */
const SAMPLED_OPENINGS = 8;
const RESOURCES_POINTER = '/spec/template/spec/containers/*/resources';

interface ArgoObject {
  file: string;
  line: number;
  doc: Json;
}

function argoObjects(index: RepoIndex, kind: string): ArgoObject[] {
  const found: ArgoObject[] = [];
  for (const [file, scanned] of index.files) {
    scanned.documents.forEach((doc, i) => {
      if (isObject(doc) && doc.kind === kind && String(doc.apiVersion).startsWith('argoproj.io/')) {
        found.push({ file, line: scanned.lines[i] ?? 1, doc });
      }
    });
  }
  return found;
}

/** An ignoreDifferences entry that hides a workload's container resources from sync. */
function ignoresResources(entry: Json): boolean {
  if (entry.kind !== undefined && !(WORKLOAD_KINDS as readonly string[]).includes(String(entry.kind))) return false;
  const pointers = Array.isArray(entry.jsonPointers) ? entry.jsonPointers.map(String) : [];
  const byPointer = pointers.some((pointer) => {
    const path = pointer.replace(/\/\d+(?=\/|$)/g, '/*');
    return RESOURCES_POINTER === path || RESOURCES_POINTER.startsWith(`${path}/`) || path.includes('/resources');
  });
  const expressions = Array.isArray(entry.jqPathExpressions) ? entry.jqPathExpressions.map(String) : [];
  const byExpression = expressions.some((expression) => /\.(resources|containers)\b/.test(expression) || expression.trim() === '.spec.template');
  return byPointer || byExpression;
}

function checkIgnoreDifferences(index: RepoIndex): Finding[] {
  return argoObjects(index, 'Application').flatMap(({ file, line, doc }) => {
    const spec = isObject(doc.spec) ? doc.spec : {};
    const syncPolicy = isObject(spec.syncPolicy) ? spec.syncPolicy : {};
    const options = Array.isArray(syncPolicy.syncOptions) ? syncPolicy.syncOptions.map(String) : [];
    const entries = Array.isArray(spec.ignoreDifferences) ? spec.ignoreDifferences.filter(isObject) : [];
    if (!options.includes('RespectIgnoreDifferences=true') || !entries.some(ignoresResources)) return [];
    const name = isObject(doc.metadata) ? String(doc.metadata.name) : '?';
    return [{
      check: 'argo-ignore-differences',
      severity: 'error',
      file,
      line,
      message: `Argo CD Application ${name} ignores differences in container resources and respects them on sync (RespectIgnoreDifferences=true): merged kerf PRs would never reach the cluster`,
      fix: 'remove the ignoreDifferences entry for resources (in-place resizes need none: they never touch the pod template), or drop RespectIgnoreDifferences=true',
    }];
  });
}

interface SyncWindow {
  kind: 'allow' | 'deny';
  window: CompiledWindow;
}

function syncWindows(index: RepoIndex): { windows: SyncWindow[]; file: string; line: number }[] {
  return argoObjects(index, 'AppProject').map(({ file, line, doc }) => {
    const spec = isObject(doc.spec) ? doc.spec : {};
    const entries = Array.isArray(spec.syncWindows) ? spec.syncWindows.filter(isObject) : [];
    const specs: WindowSpec[] = entries.map((entry) => ({
      schedule: String(entry.schedule),
      duration: String(entry.duration),
      ...(typeof entry.timeZone === 'string' && { timeZone: entry.timeZone }),
    }));
    const compiled = compileWindows(specs, 'maintenanceWindows');
    const windows = compiled.windows.map((window) => ({ kind: entries[window.index]?.kind === 'allow' ? ('allow' as const) : ('deny' as const), window }));
    return { windows, file, line };
  });
}

/** Argo CD: any active deny window blocks; with allow windows, syncs happen only inside one. */
function syncBlocked(windows: readonly SyncWindow[], at: Date): boolean {
  const allows = windows.filter((w) => w.kind === 'allow');
  if (windows.some((w) => w.kind === 'deny' && isOpen(w.window, at))) return true;
  return allows.length > 0 && !allows.some((w) => isOpen(w.window, at));
}

function openings(window: CompiledWindow, now: Date): Date[] {
  const result: Date[] = [];
  let at = new Date(now.getTime() - 1);
  for (let i = 0; i < SAMPLED_OPENINGS; i++) {
    const next = nextOpening(window, at);
    if (!next) break;
    result.push(next);
    at = next;
  }
  return result;
}

function checkSyncWindows(index: RepoIndex, now: Date): Finding[] {
  const findings: Finding[] = [];
  for (const project of syncWindows(index)) {
    if (project.windows.length === 0) continue;
    for (const policy of index.policies) {
      const maintenance = compiledWindows(policy.apply.maintenanceWindows, 'maintenance').windows;
      const times = maintenance.flatMap((window) => openings(window, now));
      if (times.length === 0 || !times.every((at) => syncBlocked(project.windows, at))) continue;
      findings.push({
        check: 'argo-sync-windows',
        severity: 'error',
        file: project.file,
        line: project.line,
        message: `Argo CD sync windows of ${project.file} deny syncs at every opening of the maintenance windows of RightsizingPolicy ${policy.namespace}/${policy.name}: deferred changes merged in a window would not sync until it has closed`,
        fix: 'add an allow sync window matching the maintenance windows, or move the deny windows out of them',
      });
    }
  }
  return findings;
}

/** Plan warnings, as findings: a maintenance window a freeze always covers (WindowAlwaysFrozen). */
function fromPlanWarnings(warnings: readonly PlanError[]): Finding[] {
  return warnings.flatMap((warning): Finding[] => {
    if (warning.code !== 'WindowAlwaysFrozen') return [];
    const where = { ...(warning.file !== undefined && { file: warning.file }), ...(warning.line !== undefined && { line: warning.line }) };
    return [{ check: 'overlapping-windows', severity: 'warning', ...where, message: warning.message, fix: 'move the maintenance window out of the freeze windows, or shorten the freeze' }];
  });
}

/** The window rules' codes (W1–W3, Z3); a window's Go duration shares InvalidDuration with the policy's own. */
const WINDOW_CODES = new Set(['InvalidWindow', 'InvalidSchedule', 'InvalidTimeZone', 'InvalidDuration', 'InvalidTime', 'TooManyWindows']);

/** What an invalid object does until it is fixed, by what it is. */
function consequence(error: PlanError): string {
  if (error.object?.startsWith('RightsizingPolicy')) return 'until then every workload it may cover is held (blocked, reason InvalidPolicy)';
  if (error.object?.startsWith('RightsizingRecommendation')) return 'until then the recommendation is refused whole: nothing of it is planned, written or resized';
  if (error.object === 'config') return 'until then a broken pause or freeze counts as paused or frozen, any other key keeps its default';
  return 'until then nothing in the document is read';
}

/** A recommendation's target that is not where it says: the same kind and name elsewhere, or a near name. */
function nearestTarget(index: RepoIndex, error: PlanError): string | undefined {
  const missing = /target (\S+)\/(\S+)\/(\S+) is not in the repo/.exec(error.message);
  if (!missing) return undefined;
  const [, namespace, kind, name] = missing as unknown as [string, string, string, string];
  const workloads = [...index.workloads.values()];
  const same = workloads.find((w) => w.ref.kind === kind && w.ref.name === name);
  const near = same ?? workloads.find((w) => w.ref.kind === kind && w.ref.namespace === namespace && didYouMean(name, [w.ref.name]) !== undefined);
  if (!near) return undefined;
  const written = index.files.get(near.source.file)?.documents[near.source.document] ?? writtenDocument(index, near.source.file, near.source.document);
  const hasNamespace = isObject(written) && isObject(written.metadata) && typeof written.metadata.namespace === 'string';
  const read = hasNamespace ? `in namespace ${near.ref.namespace}` : `with no namespace, read as ${near.ref.namespace}`;
  return `${near.ref.kind}/${near.ref.name} is in ${near.source.file} ${read}`;
}

/** A document as written: the scan drops the documents it has indexed, so the file is read again. */
function writtenDocument(index: RepoIndex, file: string, document: number): unknown {
  try {
    return yamlDocumentData(readFileSync(join(index.root, file), 'utf8'), document);
  } catch {
    return undefined;
  }
}

function fromPlanErrors(index: RepoIndex, errors: readonly PlanError[]): Finding[] {
  return errors.map((error): Finding => {
    const where = {
      ...(error.code !== undefined && { code: error.code }),
      ...(error.file !== undefined && { file: error.file }),
      ...(error.line !== undefined && { line: error.line }),
      ...(error.column !== undefined && { column: error.column }),
      ...(error.field !== undefined && { field: error.field }),
    };
    if (error.code !== undefined && WINDOW_CODES.has(error.code) && /[wW]indows\[\d+\]/.test(error.field ?? '')) {
      return { check: 'invalid-window', severity: 'error', ...where, message: error.message, fix: 'fix the window: an invalid maintenance window counts as closed, an invalid freeze window as open (it blocks everything)' };
    }
    if (error.code === 'TargetNotFound') {
      const nearest = nearestTarget(index, error);
      return { check: 'missing-target', severity: 'warning', ...where, message: nearest ? `${error.message}; ${nearest}` : error.message, fix: 'point spec.targetRef and metadata.namespace at the workload, add the workload to the repo (or to `paths` in .kerf/config.yaml), or delete the stale recommendation' };
    }
    if (error.code === 'HelmWorkloadNotMapped') {
      return { check: 'helm-unmapped', severity: 'error', ...where, message: error.message, fix: "add a helm: entry to .kerf/config.yaml that maps the workload to its release's values, with each container's resources path (one of the suggested ones, once you have checked the chart)" };
    }
    return { check: 'invalid-input', severity: error.severity ?? 'error', ...where, message: error.message, fix: `fix ${error.field ?? 'the file'}; ${consequence(error)}` };
  });
}

/** A valid policy that covers no workload of the repo is usually a selector or namespace typo. */
function checkPoliciesMatchingNothing(index: RepoIndex): Finding[] {
  const workloads = [...index.workloads.values()];
  return index.policies
    .filter((policy) => policy.invalid === undefined && !workloads.some((w) => w.ref.namespace === policy.namespace && matchesSelector(w.labels, policy.selector)))
    .map((policy) => ({
      check: 'policy-matches-nothing' as const,
      severity: 'warning' as const,
      ...(policy.source?.file !== undefined && { file: policy.source.file }),
      ...(policy.source?.line !== undefined && { line: policy.source.line }),
      message: `RightsizingPolicy ${policy.namespace}/${policy.name} covers no workload of the repo (namespace ${policy.namespace}, selector ${JSON.stringify(policy.selector)})`,
      fix: "check the policy's namespace and spec.selector against the workloads' labels",
    }));
}

function checkBranchProtection(protection: BranchProtection | undefined): Finding[] {
  if (!protection || protection.state === 'required') return [];
  const fix = `require the status check kerf/window on ${protection.branch} (a ruleset or branch protection), so merges wait for maintenance windows and stop during freezes`;
  if (protection.state === 'missing') {
    return [{ check: 'branch-protection', severity: 'error', message: `the default branch ${protection.branch} does not require the kerf/window status: a deferred PR can be merged outside its window`, fix }];
  }
  return [{ check: 'branch-protection', severity: 'warning', message: `could not tell whether ${protection.branch} requires kerf/window: ${protection.detail}`, fix }];
}

/** A Helm release whose workloads kerf cannot edit until a `helm:` entry says where their resources are set. */
function checkHelmReleases(index: RepoIndex, config: KerfConfig): Finding[] {
  return unmappedReleases(index.helm?.releases ?? [], config.helm ?? []).map((release) => ({
    check: 'helm-unmapped' as const,
    severity: 'warning' as const,
    file: release.file,
    ...(release.line !== undefined && { line: release.line }),
    message: `${release.owner} (Helm release ${release.release} in namespace ${release.namespace}) has no helm: entry in .kerf/config.yaml; recommendations for its workloads are refused`,
    fix: `map each workload in .kerf/config.yaml helm: with the key path of each container's resources in the values; conventional paths (never applied until configured): ${suggestedPaths('<container>').join(', ')}`,
  }));
}

export function diagnose(input: DoctorInput): Finding[] {
  const { index, plan, now, branchProtection } = input;
  return [
    ...checkIgnoreDifferences(index),
    ...checkSyncWindows(index, now),
    ...checkBranchProtection(branchProtection),
    ...fromPlanErrors(index, plan.errors),
    ...checkPoliciesMatchingNothing(index),
    ...checkHelmReleases(index, input.config),
    ...fromPlanWarnings(plan.warnings),
  ];
}

/** What doctor could not check in this run, and why. */
export function notChecked(input: { branchProtection?: BranchProtection; cluster: boolean }): string[] {
  return [
    ...(input.branchProtection === undefined ? ['whether the default branch requires kerf/window: no GITHUB_TOKEN and GITHUB_REPOSITORY to ask GitHub'] : []),
    ...(input.cluster ? [] : ["the cluster's policies and recommendations: run with --recommendations cluster (and KUBECONFIG or in-cluster) to validate them too"]),
  ];
}

export function renderFindings(findings: readonly Finding[], unchecked: readonly string[] = []): string {
  const notes = unchecked.map((what) => `not checked: ${what}\n`).join('');
  if (findings.length === 0) return `doctor: nothing found that would stop kerf changes from landing or windows from holding\n${notes}`;
  const lines = findings.map((f) => `${f.severity.toUpperCase()} [${f.check}${f.code ? ` ${f.code}` : ''}]${f.file ? ` ${f.file}${f.line ? `:${f.line}${f.column ? `:${f.column}` : ''}` : ''}` : ''}\n  ${f.message}\n  fix: ${f.fix}`);
  return `${lines.join('\n')}\n${notes}`;
}
