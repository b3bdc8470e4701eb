// The `kerf-gitops` command. Only this edge reads the clock, the environment and argv.
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { InputError, expandRecommendationPaths, loadConfig, loadRecommendationFiles, scanRepo } from './gitops/inputs.js';
import { makePlan, type Plan } from './gitops/plan.js';
import { renderPlanTable } from './gitops/plan-table.js';

const USAGE = `usage: kerf-gitops <command> [options]

commands:
  plan     show what kerf would do now for every recommendation, and why

options:
  --repo DIR                 the Git repo of manifests (default: .)
  --recommendations PATH     files, directories or globs (repeatable; default: those in the repo)
  --config FILE              reconciler config (default: <repo>/.kerf/config.yaml)
  --now RFC3339              judge windows at this time (default: the clock)
  --output table|json        (default: table)
`;

export class UsageError extends Error {
  readonly code = 'Usage';
}

export interface PlanOptions {
  repo: string;
  recommendations: string[];
  config?: string;
  now: Date;
  output: 'table' | 'json';
  fleetPaused: boolean;
}

function parseNow(value: string | undefined): Date {
  if (value === undefined) return new Date();
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(value) || Number.isNaN(date.getTime())) {
    throw new UsageError(`--now ${JSON.stringify(value)} is not an RFC 3339 time such as 2026-12-02T10:00:00Z`);
  }
  return date;
}

export function parsePlanOptions(args: string[], env: NodeJS.ProcessEnv): PlanOptions {
  const { values } = parseArgs({
    args,
    options: {
      repo: { type: 'string', default: '.' },
      recommendations: { type: 'string', multiple: true, default: [] },
      config: { type: 'string' },
      now: { type: 'string' },
      output: { type: 'string', default: 'table' },
    },
    allowPositionals: false,
    strict: true,
  });
  if (values.output !== 'table' && values.output !== 'json') {
    throw new UsageError(`--output must be table or json, got ${JSON.stringify(values.output)}`);
  }
  return {
    repo: resolve(values.repo),
    recommendations: values.recommendations,
    ...(values.config !== undefined && { config: resolve(values.config) }),
    now: parseNow(values.now),
    output: values.output,
    fleetPaused: /^(true|1|yes)$/i.test(env.KERF_PAUSE ?? ''),
  };
}

export async function runPlan(options: PlanOptions): Promise<Plan> {
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
  return makePlan({ index, recommendations, config, fleetPaused: options.fleetPaused, now: options.now }, configFile);
}

export async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'plan': {
        const options = parsePlanOptions(rest, env);
        const plan = await runPlan(options);
        process.stdout.write(options.output === 'json' ? `${JSON.stringify(plan, null, 2)}\n` : renderPlanTable(plan));
        return 0;
      }
      case undefined:
      case '--help':
      case 'help':
        process.stdout.write(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}; see kerf-gitops --help`);
    }
  } catch (error) {
    if (error instanceof InputError || error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`kerf-gitops: ${(error as Error).message}\n`);
      return 2;
    }
    throw error;
  }
}

