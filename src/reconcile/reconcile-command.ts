// `kerf-gitops reconcile`: its flags on top of plan's, the ports built from the environment, the
// summary printed, and the exit code (0 all done, 1 some group failed, 2 bad input).
import type { GroupBy } from '../model/types.js';
import type { ClusterConnection } from '../cluster/environment.js';
import type { Logger } from '../util/logger.js';
import { wantsCluster } from '../plan/cluster-source.js';
import { InputError } from '../util/input-error.js';
import { hasErrors } from '../plan/plan.js';
import { closeLoop, connectLoop, type LoopPorts } from './close-loop.js';
import type { PlanOptions } from '../plan/run-plan.js';
import { createGit, GitError } from '../git/git.js';
import { createGitHub, GitHubError, gitHubOptionsFromEnv } from '../github/github.js';
import { finishRun, reconcile, type ReconcileOptions, type ReconcilePorts } from './reconcile.js';
import type { ReconcileResult } from './change-set.js';
import { renderReconcileTable } from './reconcile-table.js';
import { redact } from '../util/redact.js';

const GROUP_BY: readonly GroupBy[] = ['per-workload', 'per-namespace', 'single'];

/** reconcile's own flags, on top of plan's. */
export const RECONCILE_FLAGS = {
  'dry-run': { type: 'boolean' },
  'group-by': { type: 'string' },
  labels: { type: 'string', multiple: true },
  reviewers: { type: 'string', multiple: true },
  'team-reviewers': { type: 'string', multiple: true },
} as const;

type ParsedFlags = Record<string, string | boolean | string[] | boolean[] | undefined>;

/** `--labels a,b --labels c` → `[a, b, c]`; undefined when the flag is absent (the config decides). */
function list(value: ParsedFlags[string]): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.flatMap((item) => String(item).split(',')).map((item) => item.trim()).filter(Boolean);
}

/** The parsed flags as reconcile options; a bad value stops the run (exit 2). */
export function reconcileFlags(extra: ParsedFlags): Omit<ReconcileOptions, keyof PlanOptions> {
  const groupBy = extra['group-by'];
  if (groupBy !== undefined && !(GROUP_BY as readonly unknown[]).includes(groupBy)) {
    throw new InputError(`--group-by must be one of ${GROUP_BY.join(', ')}, got ${JSON.stringify(groupBy)}`);
  }
  const labels = list(extra.labels);
  const reviewers = list(extra.reviewers);
  const teamReviewers = list(extra['team-reviewers']);
  return {
    dryRun: extra['dry-run'] === true,
    ...(groupBy !== undefined && { groupBy: groupBy as GroupBy }),
    ...(labels !== undefined && { labels }),
    ...(reviewers !== undefined && { reviewers }),
    ...(teamReviewers !== undefined && { teamReviewers }),
    ...(typeof extra['auto-merge'] === 'boolean' && { autoMerge: extra['auto-merge'] }),
  };
}

/** What only the edge knows: who runs (the Events' reportingInstance, the host) and the wall clock. */
export interface RunEdge {
  identity: string;
  clock: () => Date;
}

/** What a reconcile run works with, built from its environment by the CLI and the Action alike. */
export interface ReconcileSetup {
  ports: Pick<ReconcilePorts, 'git' | 'github' | 'secrets' | 'clock'>;
  /** The ports of closing the loop after the run, with `--recommendations cluster` and a cluster that loads. */
  loop?: LoopPorts;
}

/**
 * Git (the clone's origin, pushed with the token), GitHub (GITHUB_TOKEN, GITHUB_REPOSITORY,
 * GITHUB_API_URL), and with `--recommendations cluster` the loop's ports (status write-back,
 * merged-and-synced, health watch, rollback). A dry run needs neither token nor remote and closes
 * no loop; missing GitHub settings or a clone without origin are input errors.
 */
export async function reconcilePorts(
  /** `cluster`: the one the run reads and writes (`--recommendations cluster`) or reads VPAs from (`vpa`), as the edge connected it. */
  options: Pick<ReconcileOptions, 'repo' | 'recommendations' | 'dryRun'> & { cluster?: ClusterConnection },
  env: NodeJS.ProcessEnv,
  edge: RunEdge,
  log?: Logger,
): Promise<ReconcileSetup> {
  const { cluster } = options;
  const secrets = env.GITHUB_TOKEN ? [env.GITHUB_TOKEN] : [];
  const setup = (ports: ReconcileSetup['ports'], loop?: LoopPorts): ReconcileSetup => ({ ports, ...(loop && { loop }) });
  if (options.dryRun) return setup({ secrets });
  let github;
  try {
    github = gitHubOptionsFromEnv(env);
  } catch (error) {
    if (error instanceof GitHubError) throw new InputError(error.message);
    throw error;
  }
  const git = await createGit({ repo: options.repo, token: github.token }).catch((error: unknown) => {
    throw error instanceof GitError ? new InputError(error.message) : error;
  });
  const port = createGitHub({ ...github, ...(log && { log }) });
  const ports = { git, github: port, secrets, clock: edge.clock };
  // A cluster whose configuration cannot even be loaded fails the plan's read with the same error
  // (one connection, remembered), which the plan reports: the run goes on with Git alone, no loop.
  // The loop writes RightsizingRecommendations' status: VPAs have none, so `--recommendations vpa` only reads.
  if (!cluster || !wantsCluster(options.recommendations) || !(await cluster.port().then(() => true, () => false))) return setup(ports);
  return setup(ports, await connectLoop({ cluster, ports: { git, github: port }, repo: options.repo, identity: edge.identity, ...(log && { log }) }));
}

/**
 * One reconcile run as the CLI and the Action make it, in sequence: reconcile, then (with the
 * loop's ports) closeLoop on what the run worked from, then the dashboard from both.
 */
export async function reconcileThenCloseLoop(options: ReconcileOptions, ports: ReconcilePorts, loop?: LoopPorts): Promise<ReconcileResult> {
  const reconciled = await reconcile(options, ports);
  const closed = reconciled.basis && loop ? await closeLoop({ basis: reconciled.basis, pullRequests: reconciled.result.pullRequests }, loop) : { pullRequests: [], errors: [] };
  return finishRun(reconciled, closed, ports);
}

export async function runReconcileCommand(
  parsed: PlanOptions & { output: 'table' | 'json'; extra: ParsedFlags; cluster?: ClusterConnection },
  env: NodeJS.ProcessEnv,
  edge: RunEdge & { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): Promise<number> {
  const { extra, ...planOptions } = parsed;
  const options = { ...planOptions, ...reconcileFlags(extra) };
  const { ports, loop } = await reconcilePorts(options, env, edge);
  const secrets = ports.secrets ?? [];
  let result;
  try {
    result = await reconcileThenCloseLoop(options, ports, loop);
  } catch (error) {
    // Git or GitHub failing before any group could start (no access, no network): one line, exit 1.
    if (!(error instanceof GitError || error instanceof GitHubError)) throw error;
    edge.stderr.write(`kerf-gitops: ${redact(error.message, secrets)}\n`);
    return 1;
  }
  const text = options.output === 'json' ? `${JSON.stringify(result, null, 2)}\n` : renderReconcileTable(result);
  edge.stdout.write(redact(text, secrets));
  // Any error fails the run (the rest was still done): an invalid policy must not be a green run.
  return result.errors.length > 0 || hasErrors(result.plan.errors) ? 1 : 0;
}
