// The parts of a PR body that help a team decide: why (where each recommendation comes from), how
// much (requests across replicas, and their price), what could go wrong, what merging restarts,
// why a new file appears, and how to merge in the window without being awake. Pure.
import type { Decision, HorizontalPodAutoscaler, Pricing, RightsizingRecommendation, Workload } from '../model/types.js';
import { workloadKey } from '../util/workload-key.js';
import { KERF_PATCH_FILE } from '../manifests/kustomize-overlay-patch.js';
import { describeTotals, formatCost, impactOf, signed, sumTotals } from '../plan/impact.js';
import { targetName } from '../plan/groups.js';
import { formatWindow } from '../plan/window-text.js';

export interface ReviewContext {
  workloads: ReadonlyMap<string, Workload>;
  hpas: readonly HorizontalPodAutoscaler[];
  recommendations: readonly RightsizingRecommendation[];
  pricing?: Pricing;
  /** kerf enables GitHub auto-merge on its PRs (`autoMerge: true`). */
  autoMerge: boolean;
  /** Files the PR creates. */
  newFiles: readonly string[];
  /** A link to a file (and line) of the repository at the planned commit; absent in a dry run. */
  fileUrl?: (file: string, line?: number) => string;
}

export interface ReviewView {
  why: { workload: string; text: string }[];
  total: string;
  impact: { workload: string; pods: string; cpu: string; memory: string; cost: string }[];
  priced: boolean;
  risks: { workload: string; text: string }[];
  restarts: { workload: string; text: string }[];
  newFiles: { path: string; why: string }[];
  mergeAdvice: string;
}

/** Text from Git or the cluster, made inert in Markdown. (#17 brings the shared escaping; this is its local stand-in.) */
export function markdownText(text: string): string {
  return text.replace(/[\\`*_[\]<>|#~]/g, '\\$&').replace(/\s*\r?\n\s*/g, ' ');
}

/** A code span that no backtick or line break in the text can end. */
export function codeSpan(text: string): string {
  return `\`${text.replace(/`/g, "'").replace(/\r?\n/g, ' ')}\``;
}

function recommendationsByTarget(recommendations: readonly RightsizingRecommendation[]): Map<string, RightsizingRecommendation> {
  return new Map(recommendations.map((r) => [workloadKey({ namespace: r.namespace, kind: r.targetRef.kind, name: r.targetRef.name }), r]));
}

/** `vpa (bound target, 90th percentile over 168h, generated Tue 1 Dec 10:00 UTC)` */
function provenanceText(recommendation: RightsizingRecommendation): string {
  const source = recommendation.provenance;
  if (!source) return 'the recommender is not named (the recommendation has no `spec.source`)';
  const details = [
    source.bound !== undefined && `its ${codeSpan(source.bound)} estimate`,
    source.percentile !== undefined && `the ${source.percentile}th percentile of usage`,
    source.sampleWindow !== undefined && `over ${markdownText(source.sampleWindow)}`,
    source.generatedAt !== undefined && `made ${Number.isNaN(Date.parse(source.generatedAt)) ? markdownText(source.generatedAt) : formatWindow({ start: source.generatedAt })}`,
  ].filter((detail): detail is string => typeof detail === 'string');
  return `from **${markdownText(source.recommender)}**${details.length > 0 ? ` (${details.join(', ')})` : ''}`;
}

function whereText(recommendation: RightsizingRecommendation, fileUrl: ReviewContext['fileUrl']): string {
  const name = codeSpan(`${recommendation.namespace}/${recommendation.name}`);
  const file = recommendation.source?.file;
  if (!file || file === 'cluster') return `RightsizingRecommendation ${name}, read from the cluster`;
  const line = recommendation.source?.line;
  const label = markdownText(`${file}${line ? ` line ${line}` : ''}`);
  return `RightsizingRecommendation ${name} in ${fileUrl ? `[${label}](${fileUrl(file, line)})` : label}`;
}

function newFileWhy(path: string): string {
  if (path.endsWith(`/${KERF_PATCH_FILE}`) || path === KERF_PATCH_FILE) {
    return 'the values come from a base that other overlays share, so kerf writes them as a patch of this overlay (added to `patches:` of its kustomization) and leaves the base alone';
  }
  return 'kerf creates it to hold the new values';
}

function mergeAdvice(proposed: readonly Decision[], autoMerge: boolean): string {
  const deferred = proposed.filter((decision) => decision.phase === 'Deferred' && decision.nextWindow);
  const [first] = deferred.sort((a, b) => (a.nextWindow ?? '').localeCompare(b.nextWindow ?? ''));
  if (first) {
    const when = formatWindow({ start: first.nextWindow as string, ...(first.nextWindowSpan && { end: first.nextWindowSpan.end, timeZone: first.nextWindowSpan.timeZone }) });
    if (autoMerge) return `kerf has enabled auto-merge: once approved, GitHub merges this pull request when \`kerf/window\` turns green at kerf's first run in the window (${when}). Nobody needs to be awake.`;
    return `Review and approve it now, then **enable auto-merge** (the button below, or \`gh pr merge --auto\`): GitHub merges it when \`kerf/window\` turns green at kerf's first run in the window (${when}), and nobody needs to be awake. With \`autoMerge: true\` in \`.kerf/config.yaml\` kerf enables auto-merge itself.`;
  }
  return autoMerge ? 'kerf has enabled auto-merge: GitHub merges this pull request once it is approved and its required checks pass.' : 'It may merge as soon as it is reviewed.';
}

export function reviewView(proposed: readonly Decision[], context: ReviewContext): ReviewView {
  const recommendations = recommendationsByTarget(context.recommendations);
  const rows = proposed.map((decision) => {
    const key = targetName(decision.target);
    return { decision, key, impact: impactOf(decision, context.workloads.get(key), context.hpas, context.pricing) };
  });
  const currency = context.pricing?.currency;
  return {
    why: rows.map(({ key }) => {
      const recommendation = recommendations.get(key);
      return { workload: key, text: recommendation ? `${provenanceText(recommendation)}; ${whereText(recommendation, context.fileUrl)}` : 'the recommendation is not known to this run' };
    }),
    total: describeTotals(sumTotals(rows.map((row) => row.impact), context.pricing), currency),
    impact: rows.map(({ key, impact }) => ({
      workload: key,
      pods: impact.perNode ? 'per node' : String(impact.replicas),
      cpu: `${signed(impact.cpuCores)} cores`,
      memory: `${signed(impact.memoryGiB)} GiB`,
      cost: impact.monthlyCost === undefined ? '-' : formatCost(impact.monthlyCost, currency),
    })),
    priced: context.pricing !== undefined,
    risks: rows.flatMap(({ key, impact }) => impact.risks.map((text) => ({ workload: key, text }))),
    restarts: rows.map(({ key, impact }) => ({ workload: key, text: impact.restart })),
    newFiles: context.newFiles.map((path) => ({ path: markdownText(path), why: newFileWhy(path) })),
    mergeAdvice: mergeAdvice(proposed, context.autoMerge),
  };
}
