// The plan: every recommendation → one decision, with the errors met on the way.
import type {
  Decision,
  KerfConfig,
  PlanError,
  RightsizingPolicy,
  RightsizingRecommendation,
} from '../model/types.js';
import { WORKLOAD_KINDS } from '../model/types.js';
import type { RepoIndex } from '../manifests/scan.js';
import { workloadKey } from '../manifests/scan.js';
import { nearestTargets } from '../manifests/targeting.js';
import { decide, type DecisionFacts } from '../rules/decide.js';
import { selectPolicy } from '../rules/policy-match.js';
import { compiledWindows } from '../rules/window-state.js';
import { planEdits } from './edits.js';

export interface Plan {
  now: string;
  decisions: Decision[];
  errors: PlanError[];
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

/** Invalid windows are reported once per list, naming the policy (or the config) and the index. */
function windowErrors(policies: readonly RightsizingPolicy[], config: KerfConfig, configFile: string | undefined): PlanError[] {
  const errors: PlanError[] = [];
  const report = (owner: string, file: string | undefined, line: number | undefined, field: string, kind: 'maintenance' | 'freeze', specs: RightsizingPolicy['apply']['freezeWindows']) => {
    for (const error of compiledWindows(specs, kind).errors) {
      const path = `${field}[${error.index}]${error.field === undefined ? '' : `.${error.field}`}`;
      // The rule's message starts with its own list name; the policy's field path replaces it.
      const detail = error.message.slice(error.message.indexOf(': ') + 2);
      errors.push({
        ...(file !== undefined && { file }),
        ...(line !== undefined && { line }),
        object: owner,
        field: path,
        message: `${file ? `${file}: ` : ''}${owner}: ${path}: ${detail}`,
      });
    }
  };
  for (const policy of policies) {
    const owner = `RightsizingPolicy ${policy.namespace}/${policy.name}`;
    report(owner, policy.source?.file, policy.source?.line, 'spec.apply.maintenanceWindows', 'maintenance', policy.apply.maintenanceWindows);
    report(owner, policy.source?.file, policy.source?.line, 'spec.apply.freezeWindows', 'freeze', policy.apply.freezeWindows);
  }
  report('config', configFile, undefined, 'freeze.windows', 'freeze', config.freeze.windows);
  return errors;
}

function byTarget(a: Decision, b: Decision): number {
  return (
    a.target.namespace.localeCompare(b.target.namespace) ||
    a.target.kind.localeCompare(b.target.kind) ||
    a.target.name.localeCompare(b.target.name)
  );
}

export function makePlan(input: PlanInput, configFile?: string): Plan {
  const { index, recommendations, config, fleetPaused, now } = input;
  const errors: PlanError[] = [...index.errors, ...windowErrors(index.policies, config, configFile)];
  const policiesByNamespace = groupByNamespace(index.policies, (policy) => policy.namespace);
  const pdbsByNamespace = groupByNamespace(index.pdbs, (pdb) => pdb.ref.namespace);
  const hpasByNamespace = groupByNamespace(index.hpas, (hpa) => hpa.ref.namespace);
  const decisions: Decision[] = [];

  for (const recommendation of recommendations) {
    const where = `${recommendation.source?.file ? `${recommendation.source.file}: ` : ''}RightsizingRecommendation ${recommendation.namespace}/${recommendation.name}`;
    const fail = (field: string, message: string) =>
      errors.push({
        ...(recommendation.source?.file !== undefined && { file: recommendation.source.file }),
        ...(recommendation.source?.line !== undefined && { line: recommendation.source.line }),
        object: `RightsizingRecommendation ${recommendation.namespace}/${recommendation.name}`,
        field,
        message: `${where}: ${field}: ${message}`,
      });
    const { kind, name } = recommendation.targetRef;
    if (!(WORKLOAD_KINDS as readonly string[]).includes(kind)) {
      fail('spec.targetRef.kind', `unsupported target kind ${JSON.stringify(kind)}; kerf-gitops rightsizes ${WORKLOAD_KINDS.join(', ')}`);
      continue;
    }
    const key = workloadKey({ namespace: recommendation.namespace, kind, name });
    const workload = index.workloads.get(key);
    if (!workload) {
      const conflict = index.conflicts.get(key);
      const near = nearestTargets(key, [...index.workloads.keys(), ...index.conflicts.keys()]);
      fail('spec.targetRef', conflict ?? `target ${key} is not in the repo${near.length > 0 ? `; nearest: ${near.join(', ')}` : ''}`);
      continue;
    }
    const match = selectPolicy(workload, policiesByNamespace.get(workload.ref.namespace) ?? []);
    if (match.kind === 'ambiguous') {
      const [a, b] = match.policies;
      fail('spec.targetRef', `${key} is covered by two equally specific policies, ${a.name} (${a.source?.file ?? '?'}) and ${b.name} (${b.source?.file ?? '?'}); it is left alone until one of them is narrowed`);
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
      // The edit is made here too (and thrown away), so what `plan` proposes `write` can place, and
      // what it cannot is refused here, by container, with the same words.
      const dryRun = planEdits(index, [decision]);
      errors.push(...dryRun.errors);
      decisions.push(...dryRun.applied);
    } catch (error) {
      errors.push({ file: workload.source.file, object: key, message: (error as Error).message });
    }
  }
  decisions.sort(byTarget);
  return { now: now.toISOString(), decisions, errors };
}
