// Plan time against a bare `yaml` parse of the same files (issue 2: ratio ≤ 2, goal 1.5).
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { loadConfig, scanRepo } from '../src/gitops/inputs.js';
import { makePlan } from '../src/gitops/plan.js';

async function yamlFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await yamlFiles(path)));
    else if (entry.name.endsWith('.yaml')) out.push(path);
  }
  return out;
}

/** Reads every file and parses it with `yaml`, nothing more: the floor a plan is measured against. */
export async function bareParse(root: string): Promise<number> {
  let documents = 0;
  for (const file of await yamlFiles(root)) documents += parseAllDocuments(await readFile(file, 'utf8')).length;
  return documents;
}

export async function plan(root: string, now: Date): Promise<number> {
  const { config } = await loadConfig(root, undefined);
  const index = await scanRepo(root, config);
  const result = makePlan({ index, recommendations: index.recommendations, config, fleetPaused: false, now });
  if (result.errors.length > 0) throw new Error(`benchmark plan has errors: ${result.errors[0]?.message}`);
  return result.decisions.length;
}
