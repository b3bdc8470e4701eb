// `kerf-gitops doctor`: what would silently stop merged changes from landing or windows from
// holding, each with how to fix it. Pure over the scanned repo, the plan and what GitHub said.
import type { KerfConfig, PlanError, WindowSpec } from '../model/types.js';
import type { RepoIndex } from '../manifests/scan.js';
import { compileWindows, isOpen, nextOpening, type CompiledWindow } from '../rules/window.js';
import { compiledWindows } from '../rules/window-state.js';
import type { Plan } from './plan.js';

export type FindingCheck =
  | 'argo-ignore-differences'
  | 'argo-sync-windows'
  | 'branch-protection'
  | 'invalid-window'
  | 'overlapping-windows'
  | 'missing-target';

export interface Finding {
  check: FindingCheck;
  severity: 'error' | 'warning';
  file?: string;
  line?: number;
  message: string;
  fix: string;
}

/** What the repository's rules say about the `kerf/window` check on the default branch. */
export type BranchProtection =
  | { state: 'required'; branch: string }
  | { state: 'missing'; branch: string }
  | { state: 'unknown'; branch: string; detail: string };

export interface DoctorInput {
  index: RepoIndex;
  plan: Plan;
  config: KerfConfig;
  now: Date;
  /** Absent when GitHub was not asked (no token or repository). */
  branchProtection?: BranchProtection;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
/** Openings of each maintenance window that the window checks sample. */
const SAMPLED_OPENINGS = 8;
const WORKLOAD_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet']);
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
  if (entry.kind !== undefined && !WORKLOAD_KINDS.has(String(entry.kind))) return false;
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

function fromPlanErrors(errors: readonly PlanError[]): Finding[] {
  return errors.flatMap((error): Finding[] => {
    const where = { ...(error.file !== undefined && { file: error.file }), ...(error.line !== undefined && { line: error.line }) };
    if (/Windows\[\d+\]|windows\[\d+\]/.test(error.field ?? '')) {
      return [{ check: 'invalid-window', severity: 'error', ...where, message: error.message, fix: 'fix the window: an invalid maintenance window counts as closed, an invalid freeze window as open (it blocks everything)' }];
    }
    if (error.field === 'spec.targetRef' && /is not in the repo/.test(error.message)) {
      return [{ check: 'missing-target', severity: 'warning', ...where, message: error.message, fix: 'add the workload to the repo (or to `paths` in .kerf/config.yaml), or delete the stale recommendation' }];
    }
    return [];
  });
}

function checkBranchProtection(protection: BranchProtection | undefined): Finding[] {
  if (!protection || protection.state === 'required') return [];
  const fix = `require the status check kerf/window on ${protection.branch} (a ruleset or branch protection), so merges wait for maintenance windows and stop during freezes`;
  if (protection.state === 'missing') {
    return [{ check: 'branch-protection', severity: 'error', message: `the default branch ${protection.branch} does not require the kerf/window status: a deferred PR can be merged outside its window`, fix }];
  }
  return [{ check: 'branch-protection', severity: 'warning', message: `could not tell whether ${protection.branch} requires kerf/window: ${protection.detail}`, fix }];
}

export function diagnose(input: DoctorInput): Finding[] {
  const { index, plan, now, branchProtection } = input;
  return [
    ...checkIgnoreDifferences(index),
    ...checkSyncWindows(index, now),
    ...checkBranchProtection(branchProtection),
    ...fromPlanErrors(plan.errors),
    ...fromPlanWarnings(plan.warnings),
  ];
}

export function renderFindings(findings: readonly Finding[]): string {
  if (findings.length === 0) return 'doctor: nothing found that would stop kerf changes from landing or windows from holding\n';
  const lines = findings.map((f) => `${f.severity.toUpperCase()} [${f.check}]${f.file ? ` ${f.file}${f.line ? `:${f.line}` : ''}` : ''}\n  ${f.message}\n  fix: ${f.fix}`);
  return `${lines.join('\n')}\n`;
}
