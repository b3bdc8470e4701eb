// The plan: every recommendation → one decision, with the errors met on the way.
import type { Skip } from '../import/resources.js';
import type {
  Decision,
  KerfConfig,
  PlanError,
  RightsizingPolicy,
  RightsizingRecommendation,
} from '../model/types.js';
import { WORKLOAD_KINDS } from '../model/types.js';
import type { RepoIndex } from '../manifests/scan.js';
import { workloadKey } from '../util/workload-key.js';
import { nearestTargets } from '../manifests/targeting.js';
import { decide, type DecisionFacts } from '../rules/decide.js';
import { helmTargetProblem } from './helm-targets.js';
import { selectPolicy } from '../rules/policy-match.js';
import { planEdits, planEditsAcross, type EditPlan, type FileEdit, type SeparateFileJob, type SeparateFileResult } from './edits.js';

/** Whether a run met an error (warnings do not count): exit 1, a red step. */
export function hasErrors(errors: readonly PlanError[]): boolean {
  return errors.some((error) => error.severity !== 'warning');
}
import { compiledWindows } from '../rules/window-state.js';
import { alwaysFrozenWindows } from '../rules/window-free.js';

export interface Plan {
  now: string;
  decisions: Decision[];
  errors: PlanError[];
  /** With `--recommendations vpa`: what the VPAs said that was not turned into a recommendation, and why. */
  skipped?: Skip[];
  /** Problems that hold nothing back today but mean a setting does not do what it says (e.g. WindowAlwaysFrozen). */
  warnings: PlanError[];
}

export interface PlanInput {
  index: RepoIndex;
  recommendations: readonly RightsizingRecommendation[];
  config: KerfConfig;
  fleetPaused: boolean;
  now: Date;
}

function groupByNamespace<T>(items: readonly T[], namespaceOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const namespace = namespaceOf(item);
    groups.set(namespace, [...(groups.get(namespace) ?? []), item]);
  }
  return groups;
}

/** Maintenance windows that every opening of falls inside a freeze (the policy's or the chart's): nothing merges in them. */
function frozenWindowWarnings(policies: readonly RightsizingPolicy[], config: KerfConfig, now: Date): PlanError[] {
  // A fleet's policies mostly repeat a few sets of windows: each set is judged once.
  const judged = new Map<string, number[]>();
  const frozen = (policy: RightsizingPolicy): number[] => {
    const key = JSON.stringify([policy.apply.maintenanceWindows, policy.apply.freezeWindows]);
    let indices = judged.get(key);
    if (indices === undefined) {
      const freezes = [compiledWindows(config.freeze.windows, 'freeze'), compiledWindows(policy.apply.freezeWindows, 'freeze')];
      indices = alwaysFrozenWindows(compiledWindows(policy.apply.maintenanceWindows, 'maintenance'), freezes, now);
      judged.set(key, indices);
    }
    return indices;
  };
  return policies.flatMap((policy) => {
    const file = policy.source?.file;
    const object = `RightsizingPolicy ${policy.namespace}/${policy.name}`;
    return frozen(policy).map((index) => {
      const field = `spec.apply.maintenanceWindows[${index}]`;
      return {
        code: 'WindowAlwaysFrozen',
        ...(file !== undefined && { file }),
        ...(policy.source?.line !== undefined && { line: policy.source.line }),
        object,
        field,
        message: `${file ? `${file}: ` : ''}${object}: ${field} opens only inside freeze windows (the policy's or the chart's), so no deferred change is ever merged in it`,
      };
    });
  });
}

function byTarget(a: Decision, b: Decision): number {
  return (
    a.target.namespace.localeCompare(b.target.namespace) ||
    a.target.kind.localeCompare(b.target.kind) ||
    a.target.name.localeCompare(b.target.name)
  );
}

export function makePlan(input: PlanInput): Plan {
  return planWith(input, false).plan;
}

/** The plan and the file edits of its pull-request decisions, which `write` writes as they are. */
export function makePlanWithEdits(input: PlanInput): { plan: Plan; edits: FileEdit[] } {
  return planWith(input, true);
}

function planWith(input: PlanInput, files: boolean): { plan: Plan; edits: FileEdit[] } {
  const decided = decideAll(input);
  return withEdits(input, decided, planEdits(input.index, decided.proposed, { files }));
}

/**
 * makePlanWithEdits with the edits of files only their own workloads' decisions edit placed by
 * `run` (worker threads) alongside this thread's: the same plan and edits. `fewest`: see planEditsAcross.
 */
export async function makePlanWithEditsAcross(
  input: PlanInput,
  run: (jobs: SeparateFileJob[]) => Promise<SeparateFileResult[]>,
  fewest?: number,
): Promise<{ plan: Plan; edits: FileEdit[] }> {
  const decided = decideAll(input);
  return withEdits(input, decided, await planEditsAcross(input.index, decided.proposed, { ...(fewest !== undefined && { fewest }) }, run));
}

interface Decided {
  decisions: Decision[];
  /** Pull-request decisions with changes, in the plan's order, for their edits to be tried together. */
  proposed: Decision[];
  errors: PlanError[];
}

function decideAll(input: PlanInput): Decided {
  const { index, recommendations, config, fleetPaused, now } = input;
  // Window problems come with the objects' own (validation reports them, at the field's line).
  const errors: PlanError[] = [...index.errors];
  const policiesByNamespace = groupByNamespace(index.policies, (policy) => policy.namespace);
  const pdbsByNamespace = groupByNamespace(index.pdbs, (pdb) => pdb.ref.namespace);
  const hpasByNamespace = groupByNamespace(index.hpas, (hpa) => hpa.ref.namespace);
  const decisions: Decision[] = [];
  /** Pull-request decisions with changes, held until their edits are tried together below. */
  const proposed: Decision[] = [];

  for (const recommendation of recommendations) {
    const where = `${recommendation.source?.file ? `${recommendation.source.file}: ` : ''}RightsizingRecommendation ${recommendation.namespace}/${recommendation.name}`;
    const fail = (code: string, field: string, message: string) =>
      errors.push({
        code,
        ...(recommendation.source?.file !== undefined && { file: recommendation.source.file }),
        ...(recommendation.source?.line !== undefined && { line: recommendation.source.line }),
        object: `RightsizingRecommendation ${recommendation.namespace}/${recommendation.name}`,
        field,
        message: `${where}: ${field}: ${message}`,
      });
    const { kind, name } = recommendation.targetRef;
    if (!(WORKLOAD_KINDS as readonly string[]).includes(kind)) {
      fail('UnsupportedTargetKind', 'spec.targetRef.kind', `unsupported target kind ${JSON.stringify(kind)}; kerf-gitops rightsizes ${WORKLOAD_KINDS.join(', ')}`);
      continue;
    }
    const key = workloadKey({ namespace: recommendation.namespace, kind, name });
    const workload = index.workloads.get(key);
    if (!workload) {
      const unreadable = index.unreadable?.get(key);
      const conflict = index.conflicts.get(key);
      const helm = helmTargetProblem(index, recommendation);
      if (unreadable) fail('UnparsableObject', 'spec.targetRef', `target ${key} is in ${unreadable.file}, which does not parse (${unreadable.message}); nothing is planned for it`);
      else if (conflict) fail(conflict.code, 'spec.targetRef', conflict.message);
      else if (helm) fail(helm.code, 'spec.targetRef', helm.message);
      else {
        const near = nearestTargets(key, [...index.workloads.keys(), ...index.conflicts.keys()]);
        fail('TargetNotFound', 'spec.targetRef', `target ${key} is not in the repo${near.length > 0 ? `; nearest: ${near.join(', ')}` : ''}`);
      }
      continue;
    }
    const match = selectPolicy(workload, policiesByNamespace.get(workload.ref.namespace) ?? []);
    if (match.kind === 'ambiguous') {
      const [a, b] = match.policies;
      fail('AmbiguousPolicy', 'spec.targetRef', `${key} is covered by two equally specific policies, ${a.name} (${a.source?.file ?? '?'}) and ${b.name} (${b.source?.file ?? '?'}); it is left alone until one of them is narrowed`);
    }
    const facts: DecisionFacts = {
      fleetPaused,
      pdbs: pdbsByNamespace.get(workload.ref.namespace) ?? [],
      hpas: hpasByNamespace.get(workload.ref.namespace) ?? [],
    };
    try {
      const decision = decide({
        workload,
        recommendation,
        policy: match.kind === 'covered' ? match.policy : undefined,
        config,
        facts,
        now,
      });
      if (decision.action !== 'pull-request') {
        decisions.push(decision);
        continue;
      }
      if (decision.changes.length === 0) {
        decisions.push(decision);
        continue;
      }
      proposed.push(decision);
    } catch (error) {
      errors.push({ file: workload.source.file, object: key, message: (error as Error).message });
    }
  }
  return { decisions, proposed: proposed.sort(byTarget), errors };
}

/**
 * The edits are made after the decisions, all in one pass (each file read and parsed once,
 * however many of its workloads change), so what `plan` proposes is what `write` writes, and what
 * it cannot place is refused there, by container. In the order of the plan's decisions: where
 * several workloads add to one file (kerf's overlay patch), their documents follow that order.
 */
function withEdits({ index, config, now }: PlanInput, { decisions, errors }: Decided, dryRun: EditPlan): { plan: Plan; edits: FileEdit[] } {
  errors.push(...dryRun.errors);
  decisions.push(...dryRun.applied);
  decisions.sort(byTarget);
  return { plan: { now: now.toISOString(), decisions, errors, warnings: frozenWindowWarnings(index.policies, config, now) }, edits: dryRun.edits };
}
