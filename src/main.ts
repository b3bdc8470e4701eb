// The `kerf-gitops` command. Only this edge reads the clock, the environment and argv.
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { InputError } from './gitops/inputs.js';
import { runPlan, type PlanOptions } from './gitops/run-plan.js';
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

export interface CommandOptions extends PlanOptions {
  output: 'table' | 'json';
}

function parseNow(value: string | undefined): Date {
  if (value === undefined) return new Date();
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(value) || Number.isNaN(date.getTime())) {
    throw new UsageError(`--now ${JSON.stringify(value)} is not an RFC 3339 time such as 2026-12-02T10:00:00Z`);
  }
  return date;
}

export function parsePlanOptions(args: string[], env: NodeJS.ProcessEnv): CommandOptions {
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

export async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'plan': {
        const options = parsePlanOptions(rest, env);
        const { plan } = await runPlan(options);
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

