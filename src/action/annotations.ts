// Annotations: plan errors and doctor's findings on the file and line they come from, held-back
// changes that need someone to act, and failed groups. Paths are made relative to the workspace
// (where the runner starts the Action), so GitHub can show them on the file.
import { relative, resolve, sep } from 'node:path';
import * as core from '@actions/core';
import type { PlanError, Reason } from '../model/types.js';
import type { Finding } from '../plan/doctor.js';
import { workloadKey } from '../util/workload-key.js';
import type { ReconcileError } from '../reconcile/change-set.js';
import { redact } from '../util/redact.js';
import type { HeldBackChange } from './held-back.js';
import { unreachableCluster } from './status.js';

export interface Annotation {
  level: 'error' | 'warning';
  title: string;
  message: string;
  /** How to fix it (doctor's findings). */
  fix?: string;
  /** Relative to the repo of manifests. */
  file?: string;
  line?: number;
  column?: number;
}

export function planErrorAnnotations(errors: readonly PlanError[]): Annotation[] {
  return errors.map((error) => ({
    level: error.severity ?? 'error',
    title: unreachableCluster(error) ? 'kerf: cannot read the cluster' : `kerf: ${error.code ?? 'invalid manifest or policy'}`,
    message: error.message,
    ...(error.file !== undefined && { file: error.file }),
    ...(error.line !== undefined && { line: error.line }),
    ...(error.column !== undefined && { column: error.column }),
  }));
}

/** Plan warnings (a maintenance window a freeze always covers) on their file, as doctor reports them too. */
export function planWarningAnnotations(warnings: readonly PlanError[]): Annotation[] {
  return warnings.map((warning) => ({
    level: 'warning',
    title: `kerf: ${warning.code ?? 'warning'}`,
    message: warning.message,
    ...(warning.file !== undefined && { file: warning.file }),
    ...(warning.line !== undefined && { line: warning.line }),
  }));
}

export function findingAnnotations(findings: readonly Finding[]): Annotation[] {
  return findings.map((finding) => ({
    level: finding.severity,
    title: `kerf doctor: ${finding.check}`,
    message: finding.message,
    fix: finding.fix,
    ...(finding.file !== undefined && { file: finding.file }),
    ...(finding.line !== undefined && { line: finding.line }),
  }));
}

/** Holds that last until someone changes something; windows, freezes, pauses and PR limits pass by themselves. */
const NEEDS_SOMEONE: ReadonlySet<Reason | null> = new Set<Reason | null>(['SingleReplicaUnsafe', 'UnsupportedNode', 'PodDisruptionBudget']);

export function heldBackAnnotations(heldBack: readonly HeldBackChange[]): Annotation[] {
  return heldBack
    .filter(({ decision }) => decision.action === 'wait' || (decision.action === 'blocked' && NEEDS_SOMEONE.has(decision.reason)))
    .map(({ decision, reason }) => {
      const file = decision.changes[0]?.file;
      return { level: 'warning', title: 'kerf: change held back', message: `${workloadKey(decision.target)}: held back: ${reason}`, ...(file !== undefined && { file }) };
    });
}

export function reconcileErrorAnnotations(errors: readonly ReconcileError[]): Annotation[] {
  return errors.map((error) => ({ level: 'error', title: `kerf: ${error.code}`, message: `${error.branch ? `${error.branch}: ` : ''}${error.message}` }));
}

/**
 * Emits annotations once each: doctor reports an invalid window that the plan reports again,
 * and one problem should not show twice on the same line. Files are named from `workspace`, where
 * GitHub looks them up.
 */
export function annotator(repo: string, workspace: string, secrets: readonly string[]): (annotations: readonly Annotation[]) => void {
  const seen = new Set<string>();
  return (annotations) => {
    for (const annotation of annotations) {
      const file = annotation.file === undefined ? undefined : relative(workspace, resolve(repo, annotation.file)).split(sep).join('/');
      const key = JSON.stringify([file, annotation.line, annotation.message]);
      if (seen.has(key)) continue;
      seen.add(key);
      const emit = annotation.level === 'error' ? core.error : core.warning;
      const text = annotation.fix === undefined ? annotation.message : `${annotation.message}. Fix: ${annotation.fix}`;
      emit(redact(text, secrets), {
        title: annotation.title,
        ...(file !== undefined && { file }),
        ...(annotation.line !== undefined && { startLine: annotation.line }),
        ...(annotation.column !== undefined && { startColumn: annotation.column }),
      });
    }
  };
}
