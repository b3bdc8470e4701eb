// The Action's outputs (action.yml): the PR outcomes and decisions as JSON, and counts. In a dry
// run the counts are what a run would do, as the JSON says. GitHub keeps at most 1 MB of outputs
// per job, and a fleet's decisions pass that: the JSON lists are written to files (under
// RUNNER_TEMP) whose paths are outputs, and given inline only while they stay small. PR bodies
// stay in the log.
import { join } from 'node:path';
import type { PullRequestAction, ReconcileResult } from '../reconcile/change-set.js';
import type { HeldBackChange } from './held-back.js';

/** Inline JSON outputs stay below this, so both together stay well inside GitHub's 1 MB per job. */
export const MAX_INLINE_OUTPUT_BYTES = 256 * 1024;

export interface ActionOutputs {
  outputs: Record<string, string>;
  /** Files to write before the outputs are set. */
  files: { path: string; content: string }[];
}

/** `dir` is RUNNER_TEMP; without one (a local run) the lists are only inline. */
export function actionOutputs(result: ReconcileResult, heldBack: readonly HeldBackChange[], dir?: string): ActionOutputs {
  const count = (action: PullRequestAction) => String(result.pullRequests.filter((pr) => pr.action === action).length);
  const outputs: Record<string, string> = {
    opened: count('opened'),
    updated: count('updated'),
    closed: count('closed'),
    'held-back': String(heldBack.length),
  };
  const files: ActionOutputs['files'] = [];
  const lists = {
    'pull-requests': JSON.stringify(result.pullRequests.map(({ body: _body, ...pr }) => pr)),
    decisions: JSON.stringify(result.plan.decisions),
  };
  for (const [name, json] of Object.entries(lists)) {
    if (dir !== undefined) {
      const path = join(dir, `kerf-${name}.json`);
      files.push({ path, content: json });
      outputs[`${name}-file`] = path;
    }
    if (Buffer.byteLength(json, 'utf8') <= MAX_INLINE_OUTPUT_BYTES) outputs[name] = json;
  }
  return { outputs, files };
}
