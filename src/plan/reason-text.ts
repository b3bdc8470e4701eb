// What every reason means, in words, for every text people read (PR bodies, commit statuses, the
// job summary, the dashboard): one table, so they all say the same, and no rule ids — a link to
// the README section says where the rule is written down.
import type { Decision, Reason } from '../model/types.js';

/** The README of kerf-gitops, whose sections the texts link. */
export const README_URL = 'https://github.com/getkerf/kerf-gitops/blob/main/README.md';

export type ReadmeSection = 'reasons' | 'windows' | 'the-kerfwindow-status' | 'what-a-pull-request-says' | 'the-dashboard-issue';

export function readmeLink(section: ReadmeSection): string {
  return `${README_URL}#${section}`;
}

interface ReasonText {
  /** What holds, as a clause: "a freeze window is open". */
  says: string;
  /** The clause shorter, where GitHub limits the length (a commit status); `says` when absent. */
  short?: string;
  /** What a person can do about it; absent when nothing is needed. */
  todo?: string;
}

export const REASON_TEXT: Record<Reason, ReasonText> = {
  InvalidPolicy: { says: 'the policy that covers this workload is invalid', todo: 'fix the field `kerf-gitops doctor` names; nothing acts until then' },
  HelmMappingMismatch: {
    says: 'a merged change of this Helm workload\'s values was synced, but the workload does not run them: its `helm:` entry maps values the chart does not use for these resources',
    todo: 'correct the entry in `.kerf/config.yaml` (the values path of each container); nothing is proposed until it changes',
  },
  Paused: { says: 'kerf is paused for this cluster or the whole fleet', todo: 'unpause when ready (`pause` in .kerf/config.yaml, the action input `pause` or `KERF_PAUSE`)' },
  FreezeWindow: { says: 'a freeze window is open', todo: 'wait for it to close, or fix the invalid freeze window the errors name' },
  UnsupportedNode: { says: 'a node of the workload cannot resize pods in place (swap, or a static CPU or memory manager)', todo: 'use the `rollout` strategy for this workload' },
  SingleReplicaUnsafe: {
    says: 'the workload runs a single replica (or a PodDisruptionBudget allows no disruption) and this change would take it down',
    todo: 'add replicas, set `maxSurge: 1` and `maxUnavailable: 0`, or annotate the workload `kerf.getkerf.dev/allow-disruption: "true"` to accept a short disruption',
  },
  PodDisruptionBudget: { says: 'a PodDisruptionBudget refused to let kerf replace a pod', todo: 'nothing: kerf tries again on its next pass' },
  OutsideMaintenanceWindow: { says: 'the change waits for its maintenance window', todo: 'approve it and enable auto-merge: it merges when `kerf/window` turns green' },
  Fallback: { says: 'an in-place resize could not be applied on its node, so kerf fell back to a rollout' },
  HPACoordination: { says: 'a HorizontalPodAutoscaler scales this workload, and a change under an autoscaler always goes by rollout' },
  JVMMemory: {
    says: 'JVM and Python memory takes effect only after a restart, so the whole change goes by rollout',
    todo: 'to keep in-place, add `resizePolicy: [{resourceName: memory, restartPolicy: RestartContainer}]`',
  },
};

/** A deferred change with no window to wait for (no valid one, or a freeze covers every one): no PR. */
export const NO_FREE_WINDOW: ReasonText = {
  says: 'no maintenance window is free: none is valid, or a freeze covers every one, so no pull request is opened',
  short: 'no maintenance window is free (none is valid, or a freeze covers every one)',
  todo: 'add a maintenance window outside the freezes (`kerf-gitops doctor` names the covered ones)',
};

/** `a freeze window is open`, plain (statuses, tables). */
export function reasonWords(reason: Reason): string {
  return REASON_TEXT[reason].says;
}

/** What holds a decision back from a pull request, plain, with its reason code; null when nothing names it. */
export function heldReason(decision: Pick<Decision, 'action' | 'reason'>): string | null {
  // A wait (D3) is the one hold with no window to name: it has its own words.
  if (decision.action === 'wait') return `${decision.reason ?? 'OutsideMaintenanceWindow'}: ${NO_FREE_WINDOW.says}`;
  return decision.reason ? `${decision.reason}: ${reasonWords(decision.reason)}` : null;
}

/** Markdown for a held-back decision: what holds, what to do, and a link; null when nothing names it. */
export function heldReasonMarkdown(decision: Pick<Decision, 'action' | 'reason'>): string | null {
  if (decision.action === 'wait') return reasonMarkdown(NO_FREE_WINDOW);
  return decision.reason ? `**${decision.reason}**: ${reasonMarkdown(REASON_TEXT[decision.reason])}` : null;
}

/** Markdown: what holds, what to do, and a link to the README's reasons. */
export function reasonMarkdown(text: ReasonText): string {
  return `${text.says}${text.todo ? `; ${text.todo}` : ''} ([why](${readmeLink('reasons')}))`;
}
