// The plan as every command computes it: config, scan, recommendations, decisions.
import type { KerfConfig } from '../model/types.js';
import type { RepoIndex } from '../manifests/scan.js';
import { expandRecommendationPaths, loadConfig, loadRecommendationFiles, scanRepo } from './inputs.js';
import { makePlan, type Plan } from './plan.js';

export interface PlanOptions {
  repo: string;
  recommendations: string[];
  config?: string;
  now: Date;
  fleetPaused: boolean;
}

export interface PlanRun {
  plan: Plan;
  index: RepoIndex;
  config: KerfConfig;
}

export async function runPlan(options: PlanOptions): Promise<PlanRun> {
  const { config, file: configFile, errors: configErrors } = await loadConfig(options.repo, options.config);
  const index = await scanRepo(options.repo, config);
  let recommendations = index.recommendations;
  if (options.recommendations.length > 0) {
    const paths = await expandRecommendationPaths(options.recommendations, process.cwd());
    const loaded = await loadRecommendationFiles(paths, options.repo);
    recommendations = loaded.recommendations;
    index.errors.push(...loaded.errors);
  }
  index.errors.unshift(...configErrors);
  const plan = makePlan({ index, recommendations, config, fleetPaused: options.fleetPaused, now: options.now }, configFile);
  return { plan, index, config };
}
