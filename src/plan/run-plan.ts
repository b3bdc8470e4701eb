// The plan as every command computes it: config, scan, recommendations, decisions.
import type { KerfConfig, RightsizingRecommendation } from '../model/types.js';
import type { RepoIndex } from '../manifests/scan.js';
import type { ClusterSource } from '../cluster/cluster-reader.js';
import { readCluster, recommendationsInRepo, wantsCluster, withClusterFacts, withClusterRecords, type ClusterView } from './cluster-source.js';
import { expandRecommendationPaths, loadConfig, loadRecommendationFiles, scanRepo } from './inputs.js';
import { InputError } from '../util/input-error.js';
import { makePlan, makePlanWithEdits, makePlanWithEditsAcross, type Plan, type PlanInput } from './plan.js';
import { planEdits, type FileEdit, type SeparateFileJob, type SeparateFileResult } from './edits.js';
import { EDIT_JOB, workerEntry } from '../util/worker-entry.js';
import { machineWorkers, mapInWorkers } from '../util/worker-pool.js';
import { unmappedLiveHelm } from './helm-live.js';
import { aboutThisRepo, clusterVpas, fromVpas, wantsVpa } from '../import/from-vpas.js';
import { DEFAULT_IMPORT_OPTIONS, type Skip } from '../import/resources.js';

export interface PlanOptions {
  repo: string;
  recommendations: string[];
  config?: string;
  now: Date;
  /** Where the run was started: relative `--recommendations` paths and patterns resolve from it. */
  cwd: string;
  fleetPaused: boolean;
  /** Where `--recommendations cluster` and `--recommendations vpa` read from. */
  cluster?: ClusterSource;
  /**
   * Worker threads for the repo scan and the edits (0: none), whatever the repo's size; by
   * default as many as the machine has cores (up to 4) where the repo is big enough to pay for them.
   */
  workers?: number;
}

export interface PlanRun {
  plan: Plan;
  index: RepoIndex;
  config: KerfConfig;
  /** The recommendations the plan decided on (the repo's, the files', or the cluster's). */
  recommendations: RightsizingRecommendation[];
  /** What the cluster said, with `--recommendations cluster` when it could be read. */
  cluster?: ClusterView;
  /** With `edits` asked for (`write`), the file edits of the plan's pull-request decisions; empty otherwise. */
  edits: FileEdit[];
}

/** `want.edits`: keep the edited files (`write`); without, the plan's dry run lets each go once done with it. */
export async function runPlan(options: PlanOptions, want: { edits?: boolean } = {}): Promise<PlanRun> {
  const { config, errors: configErrors } = await loadConfig(options.repo, options.config);
  let index = await scanRepo(options.repo, config, options.workers);
  let recommendations = index.recommendations;
  let cluster: ClusterView | undefined;
  let skips: Skip[] | undefined;
  if (wantsCluster(options.recommendations)) {
    if (!options.cluster) throw new InputError('--recommendations cluster needs a cluster: KUBECONFIG or an in-cluster service account');
    const read = await readCluster(options.cluster, config);
    if ('error' in read) index.errors.push(read.error);
    else {
      cluster = read.view;
      recommendations = recommendationsInRepo(cluster, index).map((view) => view.recommendation);
      index = withClusterFacts(index, cluster);
      index.errors.push(...read.errors, ...unmappedLiveHelm(cluster.state, index, cluster.facts.recommendations.map((view) => view.recommendation)));
    }
  } else if (wantsVpa(options.recommendations)) {
    if (!options.cluster) throw new InputError('--recommendations vpa needs a cluster: KUBECONFIG or an in-cluster service account');
    // VPAs that cannot be read stop the run: planned without them, every open PR would look
    // unwanted and be closed, and files it was told not to use are no stand-in.
    const read = await clusterVpas(options.cluster);
    if ('error' in read) throw new InputError(read.error.message);
    const fromCluster = fromVpas(read.vpas, index, { ...DEFAULT_IMPORT_OPTIONS, bound: 'target' });
    recommendations = fromCluster.recommendations;
    skips = fromCluster.skips.filter(aboutThisRepo);
  } else if (options.recommendations.length > 0) {
    const paths = await expandRecommendationPaths(options.recommendations, options.cwd);
    const loaded = await loadRecommendationFiles(paths, options.repo);
    recommendations = loaded.recommendations;
    index.errors.push(...loaded.errors);
  }
  index.errors.unshift(...configErrors);
  const input = { index, recommendations, config, fleetPaused: options.fleetPaused, now: options.now };
  const planned = await planOnWorkers(input, want.edits === true, options.workers);
  const { plan } = planned;
  let { edits } = planned;
  if (cluster) {
    const decided = plan.decisions;
    plan.decisions = withClusterRecords(decided, cluster, index);
    // The cluster's records held some pull requests back: their edits go too.
    if (want.edits && plan.decisions.some((decision, i) => decision !== decided[i])) edits = planEdits(index, plan.decisions).edits;
  }
  if (skips) plan.skipped = skips;
  return { plan, index, config, recommendations, edits, ...(cluster && { cluster }) };
}

/**
 * The plan, and with `files` its edits. Those of files only their own workloads' decisions edit
 * are made on worker threads when an entry module registered one to start them from (and there
 * are enough of them, unless `workers` is given); the result is the same either way. Plan's dry
 * run places most edits from the scan's sketches, too cheap to be worth workers.
 */
async function planOnWorkers(input: PlanInput, files: boolean, workers: number | undefined): Promise<{ plan: Plan; edits: FileEdit[] }> {
  if (!files) return { plan: makePlan(input), edits: [] };
  const entry = workerEntry();
  const count = entry === undefined ? 0 : (workers ?? machineWorkers());
  if (entry === undefined || count === 0) return makePlanWithEdits(input);
  const run = (jobs: SeparateFileJob[]) => mapInWorkers<SeparateFileJob, SeparateFileResult>(jobs, { entry, job: EDIT_JOB, workers: count });
  return makePlanWithEditsAcross(input, run, workers === undefined ? undefined : 1);
}
