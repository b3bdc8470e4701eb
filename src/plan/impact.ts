// How much a change moves and what it risks, for people deciding on it: requests freed or added
// across replicas (and their monthly price), the flags a reviewer should look at twice, and what
// merging restarts. Pure over a decision and the workload, HPA and config it was decided with.
import type { Change, Decision, HorizontalPodAutoscaler, Pricing, Workload } from '../model/types.js';
import { desiredReplicas, resolveRollingUpdate } from '../rules/guardrails.js';
import { parseQuantity } from '../rules/quantity.js';

/** Hours in an average month (8,760 / 12), as cloud price lists count them. */
export const HOURS_PER_MONTH = 730;
const GIB = 2 ** 30;

export interface Totals {
  /** CPU cores of requests added (positive) or freed (negative), across replicas. */
  cpuCores: number;
  /** GiB of memory requests added or freed, across replicas. */
  memoryGiB: number;
  /** With pricing: the monthly cost difference of those requests. */
  monthlyCost?: number;
}

export interface Impact extends Totals {
  /** Pods the totals count: replicas, or one per node for a DaemonSet. */
  replicas: number;
  perNode: boolean;
  risks: string[];
  /** What merging restarts, in a sentence. */
  restart: string;
}

const amount = (text: string | null): number => (text === null ? 0 : parseQuantity(text).toNumber());

function requestDelta(changes: readonly Change[], field: Change['field']): number {
  return changes.filter((change) => change.field === field).reduce((sum, change) => sum + amount(change.to) - amount(change.from), 0);
}

export function monthlyCost(totals: Pick<Totals, 'cpuCores' | 'memoryGiB'>, pricing: Pricing): number {
  return (totals.cpuCores * pricing.cpuCoreHour + totals.memoryGiB * pricing.memoryGiBHour) * HOURS_PER_MONTH;
}

export function sumTotals(all: readonly Totals[], pricing: Pricing | undefined): Totals {
  const cpuCores = all.reduce((sum, totals) => sum + totals.cpuCores, 0);
  const memoryGiB = all.reduce((sum, totals) => sum + totals.memoryGiB, 0);
  return { cpuCores, memoryGiB, ...(pricing && { monthlyCost: monthlyCost({ cpuCores, memoryGiB }, pricing) }) };
}

/** `app memory limit 1Gi → 768Mi` */
function what(change: Change): string {
  const [group, resource] = change.field.split('.') as [string, string];
  return `\`${change.container}\` ${resource} ${group === 'limits' ? 'limit' : 'request'} ${change.from ?? 'none'} → ${change.to ?? 'none'}`;
}

function changeRisks(change: Change): string[] {
  if (change.from === null || change.to === null) return [];
  const [from, to] = [amount(change.from), amount(change.to)];
  if (from <= 0) return [];
  const risks: string[] = [];
  if (change.field === 'limits.memory' && to < from) {
    risks.push(`memory limit cut (${what(change)}): a container that goes above it is OOM-killed`);
  }
  if (to < from / 2) risks.push(`cut by more than half (${what(change)}, ${Math.round((1 - to / from) * 100)}% less)`);
  if (change.field.startsWith('requests.') && to > 2 * from) {
    risks.push(`request more than doubled (${what(change)}, ×${(to / from).toFixed(1)}): the pods need that much free room on their nodes to schedule`);
  }
  return risks;
}

/** A CPU request cut makes the same usage a higher utilisation, so an HPA scaling on CPU adds replicas. */
function hpaRisk(changes: readonly Change[], hpa: HorizontalPodAutoscaler | undefined): string[] {
  if (!hpa) return [];
  return changes.flatMap((change) => {
    if (change.field !== 'requests.cpu' || change.from === null || change.to === null) return [];
    const [from, to] = [amount(change.from), amount(change.to)];
    if (!(to < from) || to <= 0) return [];
    const factor = (from / to).toFixed(2);
    const target = hpa.cpuTargetUtilization === undefined ? 'its CPU target' : `its target of ${hpa.cpuTargetUtilization}% CPU utilisation`;
    return [
      `HorizontalPodAutoscaler \`${hpa.ref.name}\` measures CPU against the request: with ${what(change)} the same usage reads ${factor}× higher against ${target}, so it will run more replicas`,
    ];
  });
}

function restartText(workload: Workload, replicas: number, hpa: HorizontalPodAutoscaler | undefined): string {
  const { kind } = workload.ref;
  const type = workload.updateStrategy.type;
  const pods = `${replicas} pod${replicas === 1 ? '' : 's'}${hpa ? ' (as many as the HPA runs)' : ''}`;
  if (kind === 'Deployment' && type === 'Recreate') return `all ${pods} stop before the new ones start (\`strategy: Recreate\`): the workload is down in between`;
  if (kind === 'StatefulSet') {
    const last = replicas - 1;
    const order = replicas > 1 ? `highest ordinal first (${workload.ref.name}-${last} … ${workload.ref.name}-0)` : `(${workload.ref.name}-0)`;
    if (type === 'OnDelete') {
      return `${pods} are replaced by kerf's in-cluster helper (\`updateStrategy: OnDelete\`), one at a time ${order}, each once every pod has been Ready for the policy's \`onDelete.settle\``;
    }
    return `${pods} restart one at a time, ${order}, each after the one before is Ready`;
  }
  const rolling = resolveRollingUpdate(workload, replicas);
  if (kind === 'DaemonSet') {
    if (!rolling) return 'nothing restarts until each pod is deleted (`updateStrategy: OnDelete`): new pods get the values';
    return `the pod on every node restarts, ${rolling.maxUnavailable} node(s) at a time (maxUnavailable ${rolling.maxUnavailable}, maxSurge ${rolling.maxSurge})`;
  }
  if (!rolling) return `${pods} restart`;
  return `${pods} restart in a rolling update: up to ${rolling.maxSurge} extra pod(s) at a time (maxSurge) and ${rolling.maxUnavailable} unavailable (maxUnavailable)`;
}

export function impactOf(decision: Decision, workload: Workload | undefined, hpas: readonly HorizontalPodAutoscaler[], pricing: Pricing | undefined): Impact {
  const hpa = workload && hpas.find((h) => h.ref.namespace === workload.ref.namespace && h.target.kind === workload.ref.kind && h.target.name === workload.ref.name);
  const replicas = workload ? desiredReplicas(workload, hpa) : 1;
  const perNode = workload?.ref.kind === 'DaemonSet';
  const cpuCores = requestDelta(decision.changes, 'requests.cpu') * replicas;
  const memoryGiB = (requestDelta(decision.changes, 'requests.memory') * replicas) / GIB;
  return {
    replicas,
    perNode,
    cpuCores,
    memoryGiB,
    ...(pricing && { monthlyCost: monthlyCost({ cpuCores, memoryGiB }, pricing) }),
    risks: [...decision.changes.flatMap(changeRisks), ...hpaRisk(decision.changes, hpa)],
    restart: workload ? restartText(workload, replicas, hpa) : 'its pods restart',
  };
}

/** `-1.25`, `+0.5`, `0`: at most two decimals. */
export function signed(value: number): string {
  const rounded = Math.round(value * 100) / 100;
  if (rounded === 0) return '0';
  return `${rounded > 0 ? '+' : '−'}${Math.abs(rounded)}`;
}

/** `−€12.40 a month` / `+12.40 USD a month` */
export function formatCost(value: number, currency: string | undefined): string {
  const sign = Math.round(value * 100) === 0 ? '' : value > 0 ? '+' : '−';
  const number = Math.abs(value).toFixed(2);
  if (!currency) return `${sign}${number}`;
  return currency.length === 1 ? `${sign}${currency}${number}` : `${sign}${number} ${currency}`;
}

/** `frees 1.25 CPU cores and adds 0.5 GiB of memory in requests, −€84.10 a month` */
export function describeTotals(totals: Totals, currency: string | undefined): string {
  const part = (value: number, unit: string, units: string) => {
    const size = Math.abs(Math.round(value * 100) / 100);
    if (size === 0) return `changes no ${units}`;
    return `${value < 0 ? 'frees' : 'adds'} ${size} ${size === 1 ? unit : units}`;
  };
  const cost = totals.monthlyCost === undefined ? '' : `, ${formatCost(totals.monthlyCost, currency)} a month`;
  return `${part(totals.cpuCores, 'CPU core', 'CPU cores')} and ${part(totals.memoryGiB, 'GiB of memory', 'GiB of memory')} in requests${cost}`;
}
