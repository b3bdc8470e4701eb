// The GitHub Action: its inputs become the options `kerf-gitops reconcile` builds, the same
// reconcile() runs, and the result becomes outputs, annotations and the job summary. Only this
// edge reads the inputs, the environment and the clock.
import { writeFile } from 'node:fs/promises';
import * as core from '@actions/core';
import { diagnose, renderFindings, type Finding } from './plan/doctor.js';
import { GitError } from './git/git.js';
import { GitHubError, type GitHubPort } from './github/github.js';
import { wantsCluster } from './plan/cluster-source.js';
import { wantsVpa } from './import/from-vpas.js';
import { InputError } from './util/input-error.js';
import { renderPlanTable } from './plan/plan-table.js';
import { hasErrors } from './plan/plan.js';
import { loadBodyTemplate } from './reconcile/pr-body.js';
import type { ReconcileOptions } from './reconcile/reconcile.js';
import { reconcilePorts, reconcileThenCloseLoop } from './reconcile/reconcile-command.js';
import { hostname } from 'node:os';
import { clusterFromEnvironment, clusterFromKubeconfig } from './cluster/environment.js';
import { yamlData } from './manifests/yaml-text.js';
import { renderReconcileTable } from './reconcile/reconcile-table.js';
import { redact } from './util/redact.js';
import { runPlan } from './plan/run-plan.js';
import { annotator, findingAnnotations, heldBackAnnotations, planErrorAnnotations, planWarningAnnotations, reconcileErrorAnnotations } from './action/annotations.js';
import { heldBackChanges } from './action/held-back.js';
import { inputMessage, readInputs } from './action/inputs.js';
import { kubeconfigSecrets } from './action/kubeconfig.js';
import { coreLogger } from './action/logger.js';
import { actionOutputs } from './action/outputs.js';
import { clusterStatus, unreachableCluster } from './action/status.js';
import { renderSummary } from './action/summary.js';

/**
 * The PR body template, found from the running file: the bundle in `dist/`, like `lib/` and
 * `src/`, sits one level below the package root, and the runner fetches the whole action repo.
 */
const BODY_TEMPLATE = new URL('../templates/pr/body.md', import.meta.url);

async function doctor(options: ReconcileOptions, github: GitHubPort | undefined): Promise<Finding[]> {
  const { plan, index, config } = await runPlan(options);
  // A dry run asks GitHub nothing, so the branch's rules go unchecked then.
  const branchProtection = await github?.windowProtection();
  const findings = diagnose({ index, plan, config, now: options.now, ...(branchProtection && { branchProtection }) });
  core.info(renderFindings(findings));
  return findings;
}

/** Masks the secrets before anything can print them: the token, the kubeconfig and its credentials. */
function inputSecrets(token: string, kubeconfig: string): string[] {
  const secrets = [...(token ? [token] : []), ...(kubeconfig ? kubeconfigSecrets(kubeconfig) : [])];
  for (const secret of secrets) core.setSecret(secret);
  return secrets;
}

export async function run(): Promise<void> {
  const token = core.getInput('token');
  const kubeconfig = core.getInput('kubeconfig');
  const secrets = inputSecrets(token, kubeconfig);
  try {
    const inputs = readInputs(new Date(), process.cwd());
    const { doctor: runDoctor } = inputs;
    const log = coreLogger(secrets);
    const annotate = annotator(inputs.options.repo, inputs.options.cwd, secrets);
    // The cluster of `recommendations: cluster` or `vpa` is the input's kubeconfig, else KUBECONFIG or in-cluster, as for the CLI.
    const { recommendations } = inputs.options;
    const needsCluster = wantsCluster(recommendations) || wantsVpa(recommendations);
    const cluster = needsCluster ? (kubeconfig ? clusterFromKubeconfig(kubeconfig, yamlData) : clusterFromEnvironment(process.env, yamlData)) : undefined;
    const options = { ...inputs.options, ...(cluster && { cluster }) };
    const { ports, loop } = await reconcilePorts(options, { ...process.env, GITHUB_TOKEN: token }, { identity: hostname(), clock: () => new Date() }, log);

    const findings = runDoctor ? await core.group('kerf doctor', () => doctor(options, ports.github)) : undefined;
    if (findings) annotate(findingAnnotations(findings));
    const renderBody = await loadBodyTemplate(BODY_TEMPLATE);
    const result = await core.group('kerf reconcile', () => reconcileThenCloseLoop(options, { ...ports, log, renderBody, secrets }, loop));
    const heldBack = heldBackChanges(result);
    core.startGroup('kerf plan');
    core.info(redact(renderPlanTable(result.plan), secrets));
    core.endGroup();
    core.startGroup('kerf pull requests');
    core.info(redact(renderReconcileTable(result), secrets));
    core.endGroup();

    annotate(planErrorAnnotations(result.plan.errors));
    // Doctor reports the same warnings; without doctor the plan's own are the only word on them.
    if (!findings) annotate(planWarningAnnotations(result.plan.warnings));
    annotate(heldBackAnnotations(heldBack));
    annotate(reconcileErrorAnnotations(result.errors));
    const { outputs, files } = actionOutputs(result, heldBack, process.env.RUNNER_TEMP || undefined);
    for (const file of files) await writeFile(file.path, redact(file.content, secrets));
    for (const [name, value] of Object.entries(outputs)) core.setOutput(name, redact(value, secrets));
    if (outputs.decisions === undefined) core.notice(`kerf: ${result.plan.decisions.length} decisions are too many for an output; they are in the file of the decisions-file output (${outputs['decisions-file'] ?? 'no RUNNER_TEMP'})`);
    // Outside a runner (a local run) there is no summary file to write.
    if (process.env.GITHUB_STEP_SUMMARY) {
      // The statuses as the loop left them; an unreachable cluster was reported once already.
      // `recommendations: vpa` writes no RightsizingRecommendation to the cluster: there is no status to read back.
      const status = cluster && wantsCluster(options.recommendations) && !result.plan.errors.some(unreachableCluster) ? await statusRows(cluster, result, options.now) : undefined;
      const decisionsFile = outputs['decisions-file'];
      await core.summary.addRaw(redact(renderSummary({ result, heldBack, ...(findings && { findings }), ...(status && { status }), ...(decisionsFile && { decisionsFile }) }), secrets), true).write();
    }
    if (result.errors.length > 0) core.setFailed(`${result.errors.length} pull request group(s) failed; the others went on (see the errors above)`);
    else if (inputs.failOnError && hasErrors(result.plan.errors)) {
      const count = result.plan.errors.filter((error) => error.severity !== 'warning').length;
      core.setFailed(`${count} error(s) in the manifests, policies, recommendations or config; the rest went on (see the annotations; fail-on-error: false keeps the step green)`);
    }
  } catch (error) {
    if (error instanceof InputError) return core.setFailed(redact(inputMessage(error), secrets));
    // Git or GitHub failing before any group could start (no access, no origin): their messages say what to fix.
    if (error instanceof GitError || error instanceof GitHubError) return core.setFailed(redact(error.message, secrets));
    core.debug(redact((error as Error)?.stack ?? String(error), secrets));
    core.setFailed(redact(`kerf-gitops failed unexpectedly: ${(error as Error)?.message ?? String(error)}`, secrets));
  }
}

/** The Status section's rows; a cluster that stops answering after the run leaves the section out, with a warning. */
async function statusRows(...args: Parameters<typeof clusterStatus>) {
  try {
    return await clusterStatus(...args);
  } catch (error) {
    core.warning(`kerf: cannot read the recommendations' status back from the cluster at ${args[0].server}: ${(error as Error).message}`);
    return undefined;
  }
}
