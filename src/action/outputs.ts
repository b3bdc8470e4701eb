// The Action's outputs (action.yml): the PR outcomes and decisions as JSON, and counts. In a dry
// run the counts are what a run would do, as the JSON says. PR bodies stay in the log: a step's
// outputs are limited to 1 MB, and a dry run over a fleet would pass that.
import type { PullRequestAction, ReconcileResult } from '../gitops/reconcile.js';
import type { HeldBackChange } from './held-back.js';

export function actionOutputs(result: ReconcileResult, heldBack: readonly HeldBackChange[]): Record<string, string> {
  const count = (action: PullRequestAction) => String(result.pullRequests.filter((pr) => pr.action === action).length);
  return {
    'pull-requests': JSON.stringify(result.pullRequests.map(({ body: _body, ...pr }) => pr)),
    decisions: JSON.stringify(result.plan.decisions),
    opened: count('opened'),
    updated: count('updated'),
    closed: count('closed'),
    'held-back': String(heldBack.length),
  };
}
