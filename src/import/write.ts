// Imported recommendations as files: one per workload, byte-stable (the same input gives the same
// bytes, so a scheduled import commits nothing when nothing changed), written atomically. The
// folder mirrors the recommender: a file an earlier import of the same recommender wrote, whose
// workload it no longer recommends, is removed, so no stale value outlives its recommender.
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { ObjectRef, RightsizingRecommendation } from '../model/types.js';
import { API_VERSION } from '../model/types.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { yamlText } from '../manifests/yaml-text.js';

function header(recommender: string): string {
  return `# Written by kerf-gitops import ${recommender}; the next import replaces it.`;
}

/** `<namespace>/<kind>-<name>.yaml` under the output folder. */
export function recommendationPath(target: ObjectRef): string {
  return `${target.namespace}/${target.kind.toLowerCase()}-${target.name}.yaml`;
}

/** The file's text, headed by the import that wrote it: keys in a fixed order, quantities as strings. */
export function renderRecommendation(recommendation: RightsizingRecommendation, importer: string): string {
  const { provenance } = recommendation;
  const document = {
    apiVersion: API_VERSION,
    kind: 'RightsizingRecommendation',
    metadata: { name: recommendation.name, namespace: recommendation.namespace },
    spec: {
      targetRef: recommendation.targetRef,
      ...(provenance && { source: provenance }),
      containers: recommendation.containers.map((container) => ({
        name: container.name,
        ...(Object.keys(container.requests).length > 0 && { requests: container.requests }),
        ...(Object.keys(container.limits).length > 0 && { limits: container.limits }),
      })),
    },
  };
  return `${header(importer)}\n${yamlText(document)}`;
}

async function yamlFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  const nested = await Promise.all(
    entries.map((entry) => (entry.isDirectory() ? yamlFiles(join(dir, entry.name)) : Promise.resolve(/\.ya?ml$/.test(entry.name) ? [join(dir, entry.name)] : []))),
  );
  return nested.flat();
}

export interface WriteResult {
  /** Paths relative to the output folder, sorted. */
  written: string[];
  unchanged: string[];
  removed: string[];
}

/**
 * Writes the files of `import <recommender>` into `outDir`, and removes that import's files it no
 * longer writes, but those of `kept` workloads (a recommender without data for them yet: its last
 * recommendation stands until it has a new one).
 */
export async function writeRecommendations(
  outDir: string,
  recommender: string,
  recommendations: readonly RightsizingRecommendation[],
  kept: readonly ObjectRef[] = [],
): Promise<WriteResult> {
  const result: WriteResult = { written: [], unchanged: [], removed: [] };
  const wanted = new Map(recommendations.map((r) => [recommendationPath({ namespace: r.namespace, ...r.targetRef }), renderRecommendation(r, recommender)]));
  const standing = new Set(kept.map(recommendationPath));
  await mkdir(outDir, { recursive: true });
  for (const [path, content] of [...wanted].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const existing = await readFile(join(outDir, path), 'utf8').catch(() => undefined);
    if (existing === content) {
      result.unchanged.push(path);
      continue;
    }
    await mkdir(dirname(join(outDir, path)), { recursive: true });
    await writeFileAtomic(outDir, path, content);
    result.written.push(path);
  }
  const ours = `${header(recommender)}\n`;
  for (const file of (await yamlFiles(outDir)).sort()) {
    const path = relative(outDir, file).split(sep).join('/');
    if (wanted.has(path) || standing.has(path)) continue;
    if (!(await readFile(file, 'utf8')).startsWith(ours)) continue;
    await rm(file);
    result.removed.push(path);
  }
  return result;
}
