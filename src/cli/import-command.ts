// `kerf-gitops import vpa|krr`: the recommendations a team's recommender already makes, written as
// RightsizingRecommendation files into the repo, one per workload, with the reason for every skip.
import { readFile } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import type { ClusterSource } from '../cluster/cluster-reader.js';
import { InputError, loadConfig, scanRepo } from '../plan/inputs.js';
import { Quantity, QuantityError } from '../rules/quantity.js';
import { fromKrr, isKrrResult } from '../import/krr.js';
import { clusterVpas, fileVpas, fromVpas } from '../import/from-vpas.js';
import { awaitingData, DEFAULT_IMPORT_OPTIONS, repoValues, skipLines, type ImportOptions, type Skip } from '../import/resources.js';
import { VPA_BOUNDS, type VpaBound } from '../import/vpa.js';
import { writeRecommendations, type WriteResult } from '../import/write.js';
import type { ObjectRef, RightsizingRecommendation } from '../model/types.js';

export const IMPORT_USAGE = `usage: kerf-gitops import vpa [--from-cluster | --file PATH…] [options]
       kerf-gitops import krr --file PATH [options]

Writes one RightsizingRecommendation per workload into the repo, from the recommender a team
already runs: VPA in updateMode Off (Goldilocks creates those), or krr's \`--formatter json\` output.
The same input gives the same bytes, so a scheduled import commits nothing when nothing changed;
files an earlier import wrote for workloads no longer recommended are removed (those still waiting
for data stay). Skipped, each with
its reason: a VPA without a recommendation yet (NoRecommendation), a VPA in an updating mode
(UpdatingMode: VPA applies those itself), containers in mode Off (ContainerOff), values within the
tolerance of the current ones (WithinTolerance), workloads or containers the repo does not define
(NotInRepo) and kinds kerf does not edit (UnsupportedKind).

options:
  --from-cluster          vpa: read the VPAs from the cluster (KUBECONFIG or in-cluster)
  --file PATH             vpa: VPA YAML/JSON (kubectl get vpa -A -o yaml), repeatable; krr: its JSON
  --repo DIR              the Git repo of manifests; current values come from it (default: .)
  --out DIR               where the files go (default: <repo>/recommendations/<vpa|krr>)
  --config FILE           reconciler config (default: <repo>/.kerf/config.yaml)
  --bound B               vpa: target (default), lowerBound, upperBound or uncappedTarget
  --tolerance PERCENT     skip changes of this many percent or less (default: 5)
  --round-cpu Q           round CPU up to a multiple of Q (default: 1m)
  --round-memory Q        round memory up to a multiple of Q (default: 1Mi)
  --output table|json     (default: table)
`;

export interface ImportReport extends WriteResult {
  /** The output folder, as given or defaulted. */
  out: string;
  skipped: Skip[];
}

function step(value: string | undefined, flag: string, fallback: Quantity): Quantity {
  if (value === undefined) return fallback;
  try {
    const quantity = Quantity.parse(value);
    if (quantity.sign() <= 0) throw new InputError(`${flag} must be above zero, got ${JSON.stringify(value)}`);
    return quantity;
  } catch (error) {
    if (error instanceof QuantityError) throw new InputError(`${flag}: ${error.message}`);
    throw error;
  }
}

function tolerance(value: string | undefined): number {
  if (value === undefined) return DEFAULT_IMPORT_OPTIONS.tolerancePercent;
  const percent = Number(value.replace(/%$/, ''));
  if (value.trim() === '' || !Number.isFinite(percent) || percent < 0 || percent > 100) throw new InputError(`--tolerance must be a percentage from 0 to 100, got ${JSON.stringify(value)}`);
  return percent;
}

async function readJson(path: string): Promise<unknown> {
  const text = await readFile(path, 'utf8').catch((error: unknown) => {
    throw new InputError(`cannot read ${path}: ${(error as Error).message}`);
  });
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InputError(`${path} is not JSON (run krr with --formatter json): ${(error as Error).message}`);
  }
}

/** Runs `import <recommender> …`; `cluster` connects on first use (only `--from-cluster` uses it). */
export async function runImport(args: string[], cluster: () => ClusterSource): Promise<ImportReport & { output: 'table' | 'json' }> {
  const [recommender, ...rest] = args;
  if (recommender !== 'vpa' && recommender !== 'krr') throw new InputError(`import needs vpa or krr, got ${JSON.stringify(recommender ?? '')}; see kerf-gitops import --help`);
  const { values } = parseArgs({
    args: rest,
    options: {
      'from-cluster': { type: 'boolean', default: false },
      file: { type: 'string', multiple: true, default: [] },
      repo: { type: 'string', default: '.' },
      out: { type: 'string' },
      config: { type: 'string' },
      bound: { type: 'string', default: 'target' },
      tolerance: { type: 'string' },
      'round-cpu': { type: 'string' },
      'round-memory': { type: 'string' },
      output: { type: 'string', default: 'table' },
    },
    allowPositionals: false,
    strict: true,
  });
  if (values.output !== 'table' && values.output !== 'json') throw new InputError(`--output must be table or json, got ${JSON.stringify(values.output)}`);
  const options: ImportOptions = {
    tolerancePercent: tolerance(values.tolerance),
    round: { cpu: step(values['round-cpu'], '--round-cpu', DEFAULT_IMPORT_OPTIONS.round.cpu), memory: step(values['round-memory'], '--round-memory', DEFAULT_IMPORT_OPTIONS.round.memory) },
  };
  const files = values.file.map((file) => resolve(file));
  if (recommender === 'vpa' && values['from-cluster'] === (files.length > 0)) throw new InputError('import vpa needs either --from-cluster or --file PATH');
  if (recommender === 'krr' && (files.length !== 1 || values['from-cluster'])) throw new InputError('import krr needs one --file PATH (krr ... --formatter json > PATH)');
  if (recommender === 'krr' && values.bound !== 'target') throw new InputError('--bound is for import vpa; krr has one recommendation');
  if (!(VPA_BOUNDS as readonly string[]).includes(values.bound)) throw new InputError(`--bound must be one of ${VPA_BOUNDS.join(', ')}, got ${JSON.stringify(values.bound)}`);

  const repo = resolve(values.repo);
  const { config, errors } = await loadConfig(repo, values.config === undefined ? undefined : resolve(values.config));
  if (errors.length > 0) throw new InputError(errors.map((error) => error.message).join('; '));
  const index = await scanRepo(repo, config);
  let recommendations: RightsizingRecommendation[];
  let skipped: Skip[];
  let awaiting: ObjectRef[];
  if (recommender === 'vpa') {
    let vpas;
    if (values['from-cluster']) {
      const read = await clusterVpas(cluster());
      if ('error' in read) throw new InputError(read.error.message);
      vpas = read.vpas;
    } else {
      vpas = await fileVpas(files);
      // A wrong file must not empty the folder: files name VPAs, or the import stops.
      if (vpas.length === 0) throw new InputError(`no autoscaling.k8s.io VerticalPodAutoscaler in ${values.file.join(', ')}`);
    }
    ({ recommendations, skips: skipped, awaiting } = fromVpas(vpas, index, { ...options, bound: values.bound as VpaBound }));
  } else {
    const result = await readJson(files[0] as string);
    if (!isKrrResult(result)) throw new InputError(`${files[0]} is not krr's JSON result (no scans and strategy); run krr with --formatter json`);
    const imported = fromKrr(result, repoValues(index), options);
    recommendations = imported.flatMap((one) => (one.recommendation ? [one.recommendation] : []));
    skipped = imported.flatMap((one) => one.skips);
    awaiting = awaitingData(imported);
  }
  const out = values.out === undefined ? resolve(repo, 'recommendations', recommender) : resolve(values.out);
  const written = await writeRecommendations(out, recommender, recommendations, awaiting);
  const inside = relative(process.cwd(), out);
  const shown = inside === '' ? '.' : inside.startsWith('..') || isAbsolute(inside) ? out : inside.split(sep).join('/');
  return { out: shown, ...written, skipped, output: values.output };
}

export function renderImport(report: ImportReport): string {
  const lines = [
    `${report.written.length} written, ${report.unchanged.length} unchanged, ${report.removed.length} removed in ${report.out}`,
    ...report.written.map((path) => `  wrote      ${path}`),
    ...report.unchanged.map((path) => `  unchanged  ${path}`),
    ...report.removed.map((path) => `  removed    ${path}`),
  ];
  return `${[...lines, ...skipLines('Skipped', report.skipped)].join('\n')}\n`;
}
