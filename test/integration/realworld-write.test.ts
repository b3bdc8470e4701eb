// `write` on real repositories it has never seen, judged by real `kubectl kustomize`: for every
// kustomize root that renders, a recommendation for every container, then every root rendered
// before and after. Only the targeted containers' CPU/memory may differ, and only to the values the
// plan wrote down (compared as quantities); every other root renders byte-identical.
//
// Plain manifests (files no kustomization renders) are judged document by document: only the
// targeted containers' CPU/memory may differ; an identity in several files is refused naming them.
//
// Scenarios per repo: the repo whole (identities several roots render must be refused by name), and
// groups of roots where no identity is rendered twice, each selected with `roots:` in
// .kerf/config.yaml. Groups are sampled deterministically (every n-th, at most GROUPS_PER_REPO) to
// keep the run within a few minutes on two cores; the test says which it took.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parseAllDocuments, stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { planEdits } from '../../src/plan/edits.js';
import { runPlan, type PlanOptions, type PlanRun } from '../../src/plan/run-plan.js';
import { writeFilesAtomic } from '../../src/util/atomic-write.js';
import { buildKustomizeGraph } from '../../src/manifests/kustomize-graph.js';
import { WORKLOAD_KINDS, type PlanError } from '../../src/model/types.js';
import { parseQuantity } from '../../src/rules/quantity.js';
import { corpusDir, hasCorpus } from '../support/corpus.js';
import { withoutCpuMemory } from '../support/cpu-memory.js';
import { hasKubectl, loadTree } from '../manifests/fixtures/kustomize/harness.js';

const realworldCandidates = [process.env.KERF_REALWORLD, join(import.meta.dirname, '../../../shared/realworld/repos'), '/work/shared/realworld/repos'];
const realworldDir = realworldCandidates.find((dir): dir is string => dir !== undefined && dir !== '' && existsSync(dir));
const GROUPS_PER_REPO = 3;
const now = new Date('2026-12-02T10:00:00Z');

const subdirs = (dir: string | undefined): string[] =>
  dir === undefined || !existsSync(dir) ? [] : readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => join(dir, e.name)).sort();
const repos = [...subdirs(realworldDir), ...(hasCorpus ? subdirs(corpusDir) : [])];

type Json = Record<string, unknown>;
const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

interface RenderedRoot {
  text: string;
  objects: Json[];
}

const MISSING_INPUT = /evalsymlink failure on '([^']+)'|no such file or directory: '?([^'\s]+)/;

/** kubectl kustomize in the working copy; generator inputs the snapshot lacks (scripts, env files) become empty stubs. */
function kustomize(copy: string, root: string): RenderedRoot | undefined {
  for (let attempt = 0; attempt < 10; attempt++) {
    const run = spawnSync('kubectl', ['kustomize', join(copy, root), '--load-restrictor=LoadRestrictionsNone'], { encoding: 'utf8', maxBuffer: 1 << 28 });
    if (run.status === 0) return { text: run.stdout, objects: parseAllDocuments(run.stdout).map((d) => d.toJS() as unknown).filter(isJson) };
    const match = MISSING_INPUT.exec(run.stderr);
    const missing = match?.[1] ?? match?.[2];
    if (missing === undefined || !missing.startsWith(copy) || /\.ya?ml$/.test(missing)) return undefined;
    mkdirSync(dirname(missing), { recursive: true });
    writeFileSync(missing, '');
  }
  return undefined;
}

const identity = (o: Json): string => {
  const meta = isJson(o['metadata']) ? o['metadata'] : {};
  return `${String(o['kind'])} ${typeof meta['namespace'] === 'string' ? meta['namespace'] : 'default'}/${String(meta['name'])}`;
};
const keyOf = (o: Json): string => {
  const [kind, rest] = identity(o).split(' ') as [string, string];
  const [namespace, name] = rest.split('/') as [string, string];
  return `${namespace}/${kind}/${name}`;
};
const isWorkload = (o: Json): boolean => (WORKLOAD_KINDS as readonly unknown[]).includes(o['kind']);

function podSpec(o: Json): Json | undefined {
  const template = isJson(o['spec']) ? o['spec']['template'] : undefined;
  return isJson(template) && isJson(template['spec']) ? template['spec'] : undefined;
}

/** The containers kerf sizes: regular ones and native sidecars. */
function containers(o: Json): Json[] {
  const spec = podSpec(o);
  const list = (value: unknown, init: boolean): Json[] => (Array.isArray(value) ? value.filter(isJson).filter((c) => !init || c['restartPolicy'] === 'Always') : []);
  return [...list(spec?.['containers'], false), ...list(spec?.['initContainers'], true)];
}

const FIELDS = ['requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory'] as const;
function valueOf(container: Json, field: string): string | undefined {
  const [group, name] = field.split('.') as [string, string];
  const resources = container['resources'];
  const values = isJson(resources) ? resources[group] : undefined;
  const value = isJson(values) ? values[name] : undefined;
  return value === undefined || value === null ? undefined : String(value);
}

/** Everything but the CPU/memory kerf may change: plain init containers are compared whole. */
const everythingButCpuMemory = (o: Json): Json => withoutCpuMemory(o, (copy) => (isJson(copy) ? containers(copy) : []));

const sameQuantity = (a: string | undefined, b: string | null | undefined): boolean =>
  a === undefined || b === undefined || b === null ? a === (b ?? undefined) : parseQuantity(a).compare(parseQuantity(b)) === 0;

/** A recommendation unlike what is there, below any usual limit: the change is visible wherever it lands. */
const RECOMMENDED = { cpu: '7m', memory: '9Mi' };

/**
 * The plan as `plan` makes it, after checking that its dry run (sketched edits, each separate file
 * placed on its own) lands and refuses exactly what `write`'s full, verified edits do.
 */
async function plannedAsWritten(options: PlanOptions): Promise<PlanRun> {
  const planned = await runPlan(options);
  expect((await runPlan(options, { edits: true })).plan).toEqual(planned.plan);
  return planned;
}

interface Figures {
  targeted: number;
  correct: number;
  wrong: number;
  refused: number;
  held: number;
  skipped: number;
  /** Targeted containers of identities defined more than once (in several files, or also by a root): refusal expected. */
  ambiguous: number;
  wrongDetails: string[];
  skippedDetails: string[];
}

const report: string[] = [];
afterAll(() => {
  if (report.length > 0) process.stdout.write(`\nreal-world write figures (targeted containers):\n${report.join('\n')}\n`);
});

function mentions(errors: readonly PlanError[], key: string, container: string): boolean {
  const [namespace, kind, name] = key.split('/');
  const label = `${kind} ${namespace}/${name}`;
  return errors.some((e) => {
    const text = `${e.object ?? ''} ${e.message}`;
    if (!text.includes(key) && !text.includes(label) && !text.includes(`${namespace}/${name}`)) return false;
    // A refusal by container names it; one for the whole workload names none.
    return !/ container /.test(e.object ?? '') || (e.object ?? '').endsWith(` container ${container}`);
  });
}

async function runScenario(copy: string, rendered: ReadonlyMap<string, RenderedRoot>, selected: readonly string[] | undefined, scratch: string): Promise<Figures> {
  const figures: Figures = { targeted: 0, correct: 0, wrong: 0, refused: 0, held: 0, skipped: 0, ambiguous: 0, wrongDetails: [], skippedDetails: [] };
  const roots = selected ?? [...rendered.keys()];
  // Every identity of the scenario's roots, with the roots that render it.
  const targets = new Map<string, { roots: string[]; containers: string[] }>();
  for (const root of roots) {
    for (const object of rendered.get(root)?.objects ?? []) {
      if (!isWorkload(object)) continue;
      const entry = targets.get(keyOf(object)) ?? { roots: [], containers: [] };
      entry.roots.push(root);
      for (const c of containers(object)) if (!entry.containers.includes(String(c['name']))) entry.containers.push(String(c['name']));
      targets.set(keyOf(object), entry);
    }
  }
  const namespaces = [...new Set([...targets.keys()].map((key) => key.split('/')[0] as string))].sort();
  const docs = [
    ...namespaces.map((namespace) => ({ apiVersion: 'kerf.getkerf.dev/v1alpha1', kind: 'RightsizingPolicy', metadata: { name: 'kerf-test', namespace }, spec: { mode: 'auto-patch', apply: { strategy: 'rollout' } } })),
  ];
  const recommendations = [...targets].map(([key, { containers: names }], i) => {
    const [namespace, kind, name] = key.split('/');
    return { apiVersion: 'kerf.getkerf.dev/v1alpha1', kind: 'RightsizingRecommendation', metadata: { name: `r${i}`, namespace }, spec: { targetRef: { kind, name }, containers: names.map((n) => ({ name: n, requests: RECOMMENDED })) } };
  });
  mkdirSync(join(copy, 'kerf-realworld-test'), { recursive: true });
  writeFileSync(join(copy, 'kerf-realworld-test/policies.yaml'), docs.map((d) => stringify(d)).join('---\n'));
  const recommendationFile = join(scratch, 'recommendations.yaml');
  writeFileSync(recommendationFile, recommendations.map((d) => stringify(d)).join('---\n'));
  mkdirSync(join(copy, '.kerf'), { recursive: true });
  // `roots` picks the kustomize roots; `paths` keeps plain files to the test's policies.
  writeFileSync(join(copy, '.kerf/config.yaml'), selected === undefined ? '{}\n' : stringify({ roots: selected, paths: ['kerf-realworld-test'] }));

  const { plan, index } = await plannedAsWritten({ repo: copy, recommendations: [recommendationFile], now, fleetPaused: false, cwd: process.cwd() });
  const { edits, errors } = planEdits(index, plan.decisions);
  await writeFilesAtomic(copy, edits.map((edit) => ({ path: edit.path, content: edit.after })));
  try {
    const allErrors = [...plan.errors, ...errors];
    // What the plan said it would write, by identity and container.
    const expected = new Map<string, Map<string, string | null>>();
    for (const decision of plan.decisions) {
      if (decision.action !== 'pull-request') continue;
      const key = `${decision.target.namespace}/${decision.target.kind}/${decision.target.name}`;
      for (const change of decision.changes) {
        const fields = expected.get(`${key} ${change.container}`) ?? new Map<string, string | null>();
        fields.set(change.field, change.to);
        expected.set(`${key} ${change.container}`, fields);
      }
    }
    const decided = new Map(plan.decisions.map((d) => [`${d.target.namespace}/${d.target.kind}/${d.target.name}`, d]));
    const outcome = new Map<string, 'correct' | 'wrong'>();
    for (const [root, before] of rendered) {
      const after = edits.length === 0 ? before : kustomize(copy, root);
      if (after === undefined) {
        figures.wrong++;
        figures.wrongDetails.push(`${root}: no longer renders`);
        continue;
      }
      if (after.text === before.text) continue;
      const afterByIdentity = new Map(after.objects.map((o) => [identity(o), o]));
      if (after.objects.length !== before.objects.length) figures.wrongDetails.push(`${root}: ${before.objects.length} objects before, ${after.objects.length} after`);
      for (const old of before.objects) {
        const next = afterByIdentity.get(identity(old));
        if (next === undefined || !isDeepStrictEqual(everythingButCpuMemory(old), everythingButCpuMemory(next))) {
          figures.wrong++;
          figures.wrongDetails.push(`${root}: ${identity(old)} changed beyond CPU/memory`);
          continue;
        }
        if (isDeepStrictEqual(old, next)) continue;
        const key = keyOf(old);
        const mine = roots.includes(root) && targets.get(key)?.roots.length === 1;
        for (const container of containers(old)) {
          const name = String(container['name']);
          const changed = containers(next).find((c) => c['name'] === name) ?? {};
          const fields = expected.get(`${key} ${name}`);
          const ok = FIELDS.every((field) => {
            const want = fields?.has(field) ? fields.get(field) : valueOf(container, field);
            return mine && sameQuantity(valueOf(changed, field), want);
          });
          if (ok && fields !== undefined) outcome.set(`${key} ${name}`, 'correct');
          else if (!ok) {
            outcome.set(`${key} ${name}`, 'wrong');
            figures.wrongDetails.push(`${root}: ${identity(old)} container ${name}${mine ? ' got other values' : ' changed, but it is not this target’s root'}`);
          }
        }
      }
    }
    for (const [key, { containers: names }] of targets) {
      for (const name of names) {
        figures.targeted++;
        const result = outcome.get(`${key} ${name}`);
        const decision = decided.get(key);
        if (result === 'wrong') figures.wrong++;
        else if (result === 'correct') figures.correct++;
        else if (expected.get(`${key} ${name}`) !== undefined && [...(expected.get(`${key} ${name}`) ?? [])].length > 0 && !mentions(allErrors, key, name)) {
          // The plan promised a change that no render shows (unless the value was already there).
          figures.skipped++;
          figures.skippedDetails.push(`${key} ${name}: planned, not rendered`);
        } else if (decision !== undefined && decision.action !== 'pull-request') figures.held++;
        else if (decision !== undefined && !decision.changes.some((c) => c.container === name) && !mentions(allErrors, key, name)) figures.held++;
        else if (mentions(allErrors, key, name)) figures.refused++;
        else {
          figures.skipped++;
          figures.skippedDetails.push(`${key} ${name}: no change and no reason`);
        }
      }
    }
  } finally {
    // Back to the snapshot for the next scenario.
    for (const edit of edits) {
      if (edit.before === '' && !index.files.has(edit.path)) rmSync(join(copy, edit.path));
      else writeFileSync(join(copy, edit.path), edit.before);
    }
  }
  return figures;
}

/**
 * The plain manifests (files no kustomization renders or sits beside): a recommendation for every
 * container of every workload, then each written file compared document by document. An identity
 * in several files must be refused naming them all.
 */
async function runPlainScenario(copy: string, graph: ReturnType<typeof buildKustomizeGraph>, rendered: ReadonlyMap<string, RenderedRoot>, scratch: string): Promise<Figures> {
  const figures: Figures = { targeted: 0, correct: 0, wrong: 0, refused: 0, held: 0, skipped: 0, ambiguous: 0, wrongDetails: [], skippedDetails: [] };
  const tree = loadTree(copy);
  const beside = new Set([...graph.kustomizations.keys()]);
  const targets = new Map<string, { files: string[]; containers: string[] }>();
  for (const [file, { documents }] of tree) {
    if (graph.renderingsOf(file).length > 0 || graph.isPatch(file) || beside.has(dirname(file)) || file.startsWith('kerf-realworld-test/')) continue;
    for (const doc of documents) {
      if (!isJson(doc) || !isWorkload(doc) || !isJson(doc['metadata']) || typeof doc['metadata']['name'] !== 'string') continue;
      const names = containers(doc).map((c) => c['name']).filter((n): n is string => typeof n === 'string');
      if (names.length === 0) continue;
      const entry = targets.get(keyOf(doc)) ?? { files: [], containers: [] };
      entry.files.push(file);
      for (const name of names) if (!entry.containers.includes(name)) entry.containers.push(name);
      targets.set(keyOf(doc), entry);
    }
  }
  if (targets.size === 0) return figures;
  // An identity a kustomize root renders as well is defined twice too.
  const renderedKeys = new Set([...rendered.values()].flatMap(({ objects }) => objects.filter(isWorkload).map(keyOf)));
  const namespaces = [...new Set([...targets.keys()].map((key) => key.split('/')[0] as string))].sort();
  mkdirSync(join(copy, 'kerf-realworld-test'), { recursive: true });
  writeFileSync(join(copy, 'kerf-realworld-test/policies.yaml'), namespaces.map((namespace) => stringify({ apiVersion: 'kerf.getkerf.dev/v1alpha1', kind: 'RightsizingPolicy', metadata: { name: 'kerf-test', namespace }, spec: { mode: 'auto-patch', apply: { strategy: 'rollout' } } })).join('---\n'));
  const recommendationFile = join(scratch, 'recommendations.yaml');
  writeFileSync(recommendationFile, [...targets].map(([key, { containers: names }], i) => {
    const [namespace, kind, name] = key.split('/');
    return stringify({ apiVersion: 'kerf.getkerf.dev/v1alpha1', kind: 'RightsizingRecommendation', metadata: { name: `r${i}`, namespace }, spec: { targetRef: { kind, name }, containers: names.map((n) => ({ name: n, requests: RECOMMENDED })) } });
  }).join('---\n'));
  mkdirSync(join(copy, '.kerf'), { recursive: true });
  writeFileSync(join(copy, '.kerf/config.yaml'), '{}\n');
  const { plan, index } = await plannedAsWritten({ repo: copy, recommendations: [recommendationFile], now, fleetPaused: false, cwd: process.cwd() });
  const { edits, errors } = planEdits(index, plan.decisions);
  // Judged from the edits themselves; nothing is written, so the copy stays the snapshot.
  const allErrors = [...plan.errors, ...errors];
  const decided = new Map(plan.decisions.map((d) => [`${d.target.namespace}/${d.target.kind}/${d.target.name}`, d]));
  const outcome = new Map<string, 'correct' | 'wrong'>();
  for (const edit of edits) {
    const before = parseAllDocuments(edit.before).map((d) => d.toJS() as unknown);
    const after = parseAllDocuments(edit.after).map((d) => d.toJS() as unknown);
    before.forEach((old, document) => {
      const next = after[document];
      if (isDeepStrictEqual(old, next)) return;
      if (!isJson(old) || !isJson(next) || !isDeepStrictEqual(everythingButCpuMemory(old), everythingButCpuMemory(next))) {
        figures.wrong++;
        figures.wrongDetails.push(`${edit.path} document ${document} changed beyond CPU/memory`);
        return;
      }
      const key = keyOf(old);
      const decision = decided.get(key);
      for (const container of containers(old)) {
        const name = String(container['name']);
        const changed = containers(next).find((c) => c['name'] === name) ?? {};
        const fields = new Map((decision?.changes ?? []).filter((c) => c.container === name).map((c) => [c.field, c.to] as const));
        const mine = targets.get(key)?.files.length === 1;
        const ok = mine && FIELDS.every((field) => sameQuantity(valueOf(changed, field), fields.has(field) ? fields.get(field) : valueOf(container, field)));
        outcome.set(`${key} ${name}`, ok ? 'correct' : 'wrong');
        if (!ok) figures.wrongDetails.push(`${edit.path}: ${identity(old)} container ${name}${mine ? ' got other values' : ' is defined in several files'}`);
      }
    });
  }
  for (const [key, { containers: names, files }] of targets) {
    for (const name of names) {
      figures.targeted++;
      if (files.length > 1 || renderedKeys.has(key)) figures.ambiguous++;
      const result = outcome.get(`${key} ${name}`);
      const decision = decided.get(key);
      if (result === 'wrong') figures.wrong++;
      else if (result === 'correct') figures.correct++;
      else if (decision?.action === 'pull-request' && decision.changes.some((c) => c.container === name) && !mentions(allErrors, key, name)) {
        figures.skipped++;
        figures.skippedDetails.push(`${key} ${name}: planned, not written`);
      } else if (decision !== undefined && !mentions(allErrors, key, name)) figures.held++;
      else if (mentions(allErrors, key, name)) figures.refused++;
      else {
        figures.skipped++;
        figures.skippedDetails.push(`${key} ${name}: no change and no reason`);
      }
    }
  }
  return figures;
}

/** Roots split into groups in which no workload identity is rendered twice (first fit, in path order). */
function collisionFreeGroups(rendered: ReadonlyMap<string, RenderedRoot>): string[][] {
  const groups: { roots: string[]; keys: Set<string> }[] = [];
  for (const [root, { objects }] of rendered) {
    const keys = objects.filter(isWorkload).map(keyOf);
    if (keys.length === 0 || new Set(keys).size !== keys.length) continue;
    const group = groups.find((g) => keys.every((key) => !g.keys.has(key)));
    if (group === undefined) groups.push({ roots: [root], keys: new Set(keys) });
    else {
      group.roots.push(root);
      for (const key of keys) group.keys.add(key);
    }
  }
  return groups.map((g) => g.roots);
}

function sample<T>(items: readonly T[], count: number): T[] {
  if (items.length <= count) return [...items];
  const step = items.length / count;
  return Array.from({ length: count }, (_, i) => items[Math.floor(i * step)] as T);
}

describe.skipIf(!hasKubectl || repos.length === 0)('write on real repositories, judged by kubectl kustomize (skipped without kubectl or ../shared)', () => {
  it.each(repos.map((path) => ({ repo: path.split('/').slice(-2).join('/'), path })))(
    '$repo: zero wrong edits, zero silent skips, and where no workload is defined twice at least 95% edited correctly',
    async ({ repo, path }) => {
      const scratch = mkdtempSync(join(tmpdir(), 'kerf-realworld-'));
      const copy = join(scratch, 'repo');
      cpSync(path, copy, { recursive: true });
      try {
        const graph = buildKustomizeGraph(loadTree(copy));
        const rendered = new Map<string, RenderedRoot>();
        for (const root of graph.roots) {
          const result = kustomize(copy, root);
          if (result !== undefined && result.objects.some(isWorkload)) rendered.set(root, result);
        }
        const plain = await runPlainScenario(copy, graph, rendered, scratch);
        if (plain.targeted > 0) {
          report.push(`${repo}: plain manifests: ${plain.targeted} targeted, ${plain.correct} correct, ${plain.wrong} wrong, ${plain.refused} refused (${plain.ambiguous} defined more than once), ${plain.held} held by rules, ${plain.skipped} silently skipped`);
        }
        expect(plain.wrongDetails).toEqual([]);
        expect(plain.skippedDetails).toEqual([]);
        const plainPlaceable = plain.targeted - plain.held - plain.ambiguous;
        if (plainPlaceable > 0) expect(plain.correct / plainPlaceable, `${repo} plain: ${plain.correct} of ${plainPlaceable}`).toBeGreaterThanOrEqual(0.95);
        if (rendered.size === 0) return;
        const whole = await runScenario(copy, rendered, undefined, scratch);
        const groups = collisionFreeGroups(rendered);
        const sampled = sample(groups, GROUPS_PER_REPO);
        const grouped: Figures[] = [];
        for (const group of sampled) grouped.push(await runScenario(copy, rendered, group, scratch));
        const sum = (key: 'targeted' | 'correct' | 'wrong' | 'refused' | 'held' | 'skipped'): number => grouped.reduce((total, f) => total + f[key], 0);
        report.push(
          `${repo}: ${rendered.size} roots render; whole: ${whole.targeted} targeted, ${whole.correct} correct, ${whole.wrong} wrong, ${whole.refused} refused, ${whole.held} held by rules, ${whole.skipped} silently skipped; ` +
            `${sampled.length} of ${groups.length} collision-free groups: ${sum('targeted')} targeted, ${sum('correct')} correct, ${sum('wrong')} wrong, ${sum('refused')} refused, ${sum('held')} held, ${sum('skipped')} skipped`,
        );
        const all = [whole, ...grouped];
        expect(all.flatMap((f) => f.wrongDetails)).toEqual([]);
        expect(all.flatMap((f) => f.skippedDetails)).toEqual([]);
        const placeable = sum('targeted') - sum('held');
        if (placeable > 0) expect(sum('correct') / placeable, `${repo}: ${sum('correct')} of ${placeable}`).toBeGreaterThanOrEqual(0.95);
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    },
    600_000,
  );
});
