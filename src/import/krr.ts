// Robusta krr's `--formatter json` result as RightsizingRecommendations. krr prints one scan per
// container: `object` names the workload and container, `recommended.requests|limits.<resource>.value`
// is a number (CPU in cores, memory in bytes), `"?"` when it lacks data, or null, which krr means as
// "unset" (its simple strategy recommends no CPU limit): a limit of null removes it. Pure.
import type { ContainerRecommendation, ObjectRef, RecommendationSource } from '../model/types.js';
import { RESOURCE_NAMES, WORKLOAD_KINDS } from '../model/types.js';
import { DATE_TIME } from '../model/validate.js';
import { workloadKey } from '../util/workload-key.js';
import { assemble, quantityOf, roundUp, skipOf, type CurrentValues, type Imported, type ImportOptions, type Skip } from './resources.js';
import { objectOrEmpty, type Json } from '../util/json.js';


/** Whether parsed JSON looks like krr's result (`scans` and `strategy`). */
export function isKrrResult(value: unknown): boolean {
  const result = objectOrEmpty(value);
  return Array.isArray(result.scans) && typeof result.strategy === 'object';
}

/**
 * What the values are based on: the strategy's CPU percentile and history (hours), and when the
 * metrics were read (the latest query end; krr prints no zone on some versions, and then none is given).
 */
function provenance(result: Json, scans: readonly Json[]): RecommendationSource {
  const settings = objectOrEmpty(objectOrEmpty(result.strategy).settings);
  const percentile = settings.cpu_percentile;
  const history = settings.history_duration;
  const ends = scans
    .flatMap((scan) => Object.values(objectOrEmpty(scan.metrics)).map((metric) => objectOrEmpty(metric).end_time))
    .filter((end): end is string => typeof end === 'string' && DATE_TIME.test(end))
    .sort();
  const generatedAt = ends.at(-1);
  return {
    recommender: 'krr',
    ...(typeof percentile === 'number' && percentile >= 0 && percentile <= 100 && { percentile }),
    ...(typeof history === 'number' && Number.isFinite(history) && history > 0 && { sampleWindow: `${history}h` }),
    ...(generatedAt && { generatedAt }),
  };
}

function proposal(scan: Json, options: ImportOptions, target: ObjectRef): ContainerRecommendation | Skip {
  const name = String(objectOrEmpty(scan.object).container ?? '');
  const recommended = objectOrEmpty(scan.recommended);
  const result: ContainerRecommendation = { name, requests: {}, limits: {} };
  for (const field of ['requests', 'limits'] as const) {
    const values = objectOrEmpty(recommended[field]);
    for (const resource of RESOURCE_NAMES) {
      if (!(resource in values)) continue;
      const value = objectOrEmpty(values[resource]).value;
      if (value === '?' || value === undefined) continue;
      // A request krr leaves unset is no recommendation; a limit it leaves unset is one: remove it.
      if (value === null) {
        if (field === 'limits') result.limits[resource] = null;
        continue;
      }
      const quantity = quantityOf(value);
      if (!quantity) return skipOf(target, 'InvalidRecommendation', `container ${name}: krr's ${field}.${resource} ${JSON.stringify(value)} is not a quantity`, name);
      result[field][resource] = roundUp(quantity, options.round[resource]).toString();
    }
  }
  if (Object.keys(result.requests).length === 0) return skipOf(target, 'NoRecommendation', `krr has no request recommendation for container ${name} yet (not enough data)`, name);
  return result;
}

/** krr's result, one Imported per workload in a stable order (namespace, kind, name). */
export function fromKrr(result: unknown, currentValues: CurrentValues, options: ImportOptions): Imported[] {
  const json = objectOrEmpty(result);
  const scans = Array.isArray(json.scans) ? json.scans.map(objectOrEmpty) : [];
  const byWorkload = new Map<string, { target: ObjectRef; scans: Json[] }>();
  for (const scan of scans) {
    const workload = objectOrEmpty(scan.object);
    const target = { namespace: String(workload.namespace ?? 'default'), kind: String(workload.kind ?? ''), name: String(workload.name ?? '') };
    const key = workloadKey(target);
    const entry = byWorkload.get(key) ?? { target, scans: [] };
    entry.scans.push(scan);
    byWorkload.set(key, entry);
  }
  const source = provenance(json, scans);
  return [...byWorkload.keys()].sort().map((key): Imported => {
    const { target, scans: workloadScans } = byWorkload.get(key) as { target: ObjectRef; scans: Json[] };
    const skip = (reason: Skip['reason'], message: string): Imported => ({ skips: [skipOf(target, reason, message)] });
    if (!(WORKLOAD_KINDS as readonly string[]).includes(target.kind)) return skip('UnsupportedKind', `krr scanned a ${target.kind || 'missing kind'}; kerf rightsizes Deployments, StatefulSets and DaemonSets`);
    const current = currentValues(target);
    if (!current) return skip('NotInRepo', "the repo's manifests do not define it");
    const skips: Skip[] = [];
    const proposals: ContainerRecommendation[] = [];
    for (const scan of workloadScans) {
      const made = proposal(scan, options, target);
      if ('reason' in made) skips.push(made);
      else proposals.push(made);
    }
    return assemble({ ...target, apiVersion: 'apps/v1' }, proposals, current, source, options, skips);
  });
}
