// The `kerf-gitops` command. Only this edge reads the clock, the environment and argv.
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { hostname } from 'node:os';
import { inputStopsTheRun, UsageError } from './usage-error.js';
import { runPlan, type PlanOptions } from '../plan/run-plan.js';
import { planTableChunks, renderPlanTable } from '../plan/plan-table.js';
import { RECONCILE_FLAGS, runReconcileCommand } from '../reconcile/reconcile-command.js';
import { diagnose, notChecked, renderFindings } from '../plan/doctor.js';
import { createGitHub, GitHubError, gitHubOptionsFromEnv } from '../github/github.js';
import { hasErrors } from '../plan/plan.js';
import { writeFilesAtomic } from '../util/atomic-write.js';
import { clusterFromEnvironment, type ClusterConnection } from '../cluster/environment.js';
import { clusterConfigProblem } from '../cluster/kube-connection.js';
import { yamlData } from '../manifests/yaml-text.js';
import { wantsCluster } from '../plan/cluster-source.js';
import { runStatusCommand } from '../reconcile/status-command.js';
import { VERSION } from '../version.js';
import { IMPORT_USAGE, renderImport, runImport } from './import-command.js';
import { wantsVpa } from '../import/from-vpas.js';

const USAGE = `usage: kerf-gitops <command> [options]

commands:
  plan       show what kerf would do now for every recommendation, and why
  write      make the plan's pull-request edits in the working tree (no git, no network)
  helper     the in-cluster helper: in-place resizes, the webhook, fallbacks, OnDelete pods
             (--config FILE, --webhook-port N --tls-cert FILE --tls-key FILE | --self-signed-cert | --no-webhook,
             --health-port N, --bind-address IP; see kerf-gitops helper --help)
  doctor     the validator: every problem of the repo's policies, recommendations, manifests and config (with
             --recommendations cluster, of the cluster's too), policies that match nothing, missing targets, and what
             would stop merged changes from landing or windows from holding; exit 1 on any error (--strict: on any
             finding); with GITHUB_TOKEN and GITHUB_REPOSITORY it also asks GitHub whether the default branch requires kerf/window
  reconcile  open, update and close the pull requests of the plan, with kerf/window statuses
           (needs GITHUB_TOKEN and GITHUB_REPOSITORY, GITHUB_API_URL on GHES; --dry-run needs none);
           with --recommendations cluster it also writes each recommendation's status, marks merged
           and synced changes Applied, watches their health and opens a revert PR on a breach
  import     vpa|krr: write RightsizingRecommendations from VPA (Off mode, Goldilocks) or krr's JSON
             (kerf-gitops import --help)
  status     every recommendation's phase, strategy, reason, PR, applied at and health, from the
             cluster (KUBECONFIG or in-cluster; --output table|json)

options:
  --repo DIR                 the Git repo of manifests (default: .)
  --recommendations PATH     files, directories or globs (repeatable; default: those in the repo);
                             "cluster" reads them, with their status and live facts, from the cluster;
                             "vpa" decides on the cluster's VerticalPodAutoscalers in updateMode Off
  --config FILE              reconciler config (default: <repo>/.kerf/config.yaml)
  --now RFC3339              judge windows at this time (default: the clock)
  -o, --output table|json    (default: table)
  -h, --help                 this help (on every command); --version: the version

exit codes: 0 clean; 1 the run met an error (invalid policy, recommendation, manifest or config;
a failed PR group), the rest was still done; 2 input that stops the run (bad flags, a missing
repo, paths outside the repo, an invalid branchPrefix, no cluster when one is needed)

reconcile options (flags beat .kerf/config.yaml):
  --dry-run                  print what would be done, PR bodies included; no token, no remote, no writes
  --group-by per-workload|per-namespace|single
  --labels L,…               PR labels (repeatable)
  --reviewers U,…            PR reviewers (repeatable)
  --team-reviewers T,…       PR team reviewers (repeatable)
`;

export interface CommandOptions extends PlanOptions {
  output: 'table' | 'json';
  cluster?: ClusterConnection;
}

function parseNow(value: string | undefined): Date {
  if (value === undefined) return new Date();
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(value) || Number.isNaN(date.getTime())) {
    throw new UsageError(`--now ${JSON.stringify(value)} is not an RFC 3339 time such as 2026-12-02T10:00:00Z`);
  }
  return date;
}

/** KERF_WORKERS, for tests and benchmarks: the worker threads of the scan and the edits, 0 for none, whatever the repo's size. */
function workersFrom(value: string): number {
  if (!/^\d+$/.test(value)) throw new UsageError(`KERF_WORKERS ${JSON.stringify(value)} is not a number of worker threads`);
  return Number(value);
}

type ExtraOptions = Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;

/**
 * The options every command shares (those of `plan`), plus a command's own `extra` ones, whose
 * parsed values come back in `extra`.
 */
export function parseCommandOptions(
  args: string[],
  env: NodeJS.ProcessEnv,
  extraOptions: ExtraOptions = {},
): CommandOptions & { extra: Record<string, string | boolean | string[] | boolean[] | undefined> } {
  const { values } = parseArgs({
    args,
    options: {
      repo: { type: 'string', default: '.' },
      recommendations: { type: 'string', multiple: true, default: [] },
      config: { type: 'string' },
      now: { type: 'string' },
      output: { type: 'string', short: 'o', default: 'table' },
      ...extraOptions,
    },
    allowPositionals: false,
    strict: true,
  });
  const { repo, recommendations, config, now, output, ...extra } = values as Record<string, string | string[] | undefined> & { repo: string; recommendations: string[] };
  if (output !== 'table' && output !== 'json') {
    throw new UsageError(`--output must be table or json, got ${JSON.stringify(output)}`);
  }
  return {
    repo: resolve(repo),
    recommendations,
    ...(typeof config === 'string' && { config: resolve(config) }),
    now: parseNow(typeof now === 'string' ? now : undefined),
    cwd: process.cwd(),
    output,
    fleetPaused: /^(true|1|yes)$/i.test(env.KERF_PAUSE ?? ''),
    ...(env.KERF_WORKERS && { workers: workersFrom(env.KERF_WORKERS) }),
    ...((wantsCluster(recommendations) || wantsVpa(recommendations)) && { cluster: clusterFromEnvironment(env, yamlData) }),
    extra,
  };
}

/** Only GitHub knows the branch's rules: asked when a workflow's token and repository are set. */
async function windowProtection(env: NodeJS.ProcessEnv) {
  if (!env.GITHUB_TOKEN || !env.GITHUB_REPOSITORY) return undefined;
  try {
    return await createGitHub(gitHubOptionsFromEnv(env)).windowProtection();
  } catch (error) {
    if (error instanceof GitHubError) throw new UsageError(error.message);
    throw error;
  }
}

/** A cluster-only command needs a cluster: without one it is input that stops the run. */
function requireCluster(env: NodeJS.ProcessEnv): ClusterConnection {
  const problem = clusterConfigProblem(env);
  if (problem) throw new UsageError(problem);
  return clusterFromEnvironment(env, yamlData);
}

export async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [command, ...rest] = argv;
  // import prints its own usage (src/cli.ts runs `helper` before this: its process loads only the helper).
  if (command !== undefined && !['help', 'import'].includes(command) && (rest.includes('--help') || rest.includes('-h'))) {
    process.stdout.write(USAGE);
    return 0;
  }
  try {
    switch (command) {
      case 'plan': {
        const options = parseCommandOptions(rest, env);
        const { plan } = await runPlan(options);
        if (options.output === 'json') process.stdout.write(`${JSON.stringify(plan, null, 2)}\n`);
        else for (const chunk of planTableChunks(plan)) process.stdout.write(chunk);
        return hasErrors(plan.errors) ? 1 : 0;
      }
      case 'write': {
        const options = parseCommandOptions(rest, env);
        // The plan made its edits already (and refused what it could not place): they are written as they are.
        const { plan, edits } = await runPlan(options, { edits: true });
        await writeFilesAtomic(options.repo, edits.map((edit) => ({ path: edit.path, content: edit.after })));
        const result = { ...plan, written: edits.map((edit) => edit.path) };
        process.stdout.write(
          options.output === 'json'
            ? `${JSON.stringify(result, null, 2)}\n`
            : `${renderPlanTable(result)}\n${result.written.length === 0 ? 'No file changed.' : `Wrote ${result.written.length} file(s):\n${result.written.map((path) => `  ${path}`).join('\n')}`}\n`,
        );
        // Any error counts, a refusal of an edit among them.
        return hasErrors(result.errors) ? 1 : 0;
      }
      case 'doctor': {
        const options = parseCommandOptions(rest, env, { strict: { type: 'boolean' } });
        const { plan, index, config } = await runPlan(options);
        const branchProtection = await windowProtection(env);
        const findings = diagnose({ index, plan, config, now: options.now, ...(branchProtection && { branchProtection }) });
        const unchecked = notChecked({ ...(branchProtection && { branchProtection }), cluster: options.cluster !== undefined });
        process.stdout.write(options.output === 'json' ? `${JSON.stringify({ findings, notChecked: unchecked }, null, 2)}\n` : renderFindings(findings, unchecked));
        // Any error fails; --strict fails on warnings too.
        return findings.some((finding) => finding.severity === 'error' || options.extra.strict === true) ? 1 : 0;
      }
      case 'reconcile':
        return await runReconcileCommand(parseCommandOptions(rest, env, RECONCILE_FLAGS), env, { identity: hostname(), clock: () => new Date(), stdout: process.stdout, stderr: process.stderr });
      case 'import': {
        if (rest.length === 0 || rest.some((arg) => arg === '--help' || arg === '-h')) {
          process.stdout.write(IMPORT_USAGE);
          return rest.length === 0 ? 2 : 0;
        }
        const { output, ...report } = await runImport(rest, () => clusterFromEnvironment(env, yamlData), process.cwd());
        process.stdout.write(output === 'json' ? `${JSON.stringify(report, null, 2)}\n` : renderImport(report));
        return 0;
      }
      case 'status': {
        const options = parseCommandOptions(rest, env);
        return await runStatusCommand(options.cluster ?? requireCluster(env), options.output, options.now, process.stdout, process.stderr);
      }
      case '--version':
      case '-V':
        process.stdout.write(`${VERSION}\n`);
        return 0;
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        process.stdout.write(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}; see kerf-gitops --help`);
    }
  } catch (error) {
    return inputStopsTheRun(error);
  }
}

