// The Action's inputs as the very options `kerf-gitops reconcile` builds from its flags: the
// inputs carry the flags' names, so reconcile's own flag parsing does the checking.
import { resolve } from 'node:path';
import * as core from '@actions/core';
import { InputError } from '../util/input-error.js';
import { reconcileFlags } from '../reconcile/reconcile-command.js';
import type { ReconcileOptions } from '../reconcile/reconcile.js';

export interface ActionInputs {
  /** The cluster of `recommendations: cluster` is connected later, from the environment. */
  options: Omit<ReconcileOptions, 'cluster'>;
  token: string;
  doctor: boolean;
  /** Input `fail-on-error` (default true): an error in the input (a broken policy) fails the step. */
  failOnError: boolean;
}

function booleanInput(name: string): boolean {
  try {
    return core.getBooleanInput(name);
  } catch {
    // core's own message spans two lines; a failed step shows one.
    throw new InputError(`input ${name} must be true or false, got ${JSON.stringify(core.getInput(name))}`);
  }
}

/** One item per line (reconcile splits commas too); absent when empty, so the config decides. */
function listInput(name: string): string[] | undefined {
  const lines = core.getMultilineInput(name);
  return lines.length > 0 ? lines : undefined;
}

/** The options of a run judged at `now`; paths are relative to `cwd`, the workspace the runner starts us in. */
export function readInputs(now: Date, cwd: string): ActionInputs {
  const config = core.getInput('config');
  const flags = reconcileFlags({
    'dry-run': booleanInput('dry-run'),
    'group-by': core.getInput('group-by') || undefined,
    labels: listInput('labels'),
    reviewers: listInput('reviewers'),
    'team-reviewers': listInput('team-reviewers'),
    // Empty leaves it to `autoMerge` in .kerf/config.yaml.
    ...(core.getInput('auto-merge') !== '' && { 'auto-merge': booleanInput('auto-merge') }),
  });
  const options: ActionInputs['options'] = {
    repo: resolve(cwd, core.getInput('path') || '.'),
    recommendations: core.getMultilineInput('recommendations'),
    ...(config && { config: resolve(cwd, config) }),
    now,
    cwd,
    fleetPaused: booleanInput('pause'),
    ...flags,
  };
  const token = core.getInput('token');
  if (!options.dryRun && !token) throw new InputError('input token is empty: kerf needs a token to push branches and open pull requests (or dry-run: true)');
  return { options, token, doctor: booleanInput('doctor'), failOnError: booleanInput('fail-on-error') };
}

/** An input error (from here or from reconcile's checks) worded for the workflow author: `--group-by` is the input `group-by`. */
export function inputMessage(error: InputError): string {
  return error.message.replace(/--(?=[a-z])/g, 'input ');
}
