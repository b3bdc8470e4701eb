// Invalid never acts, as a property: a single-character mutation of a valid policy or
// recommendation that the validator rejects never makes the plan propose (a PR) or resize
// (in-place) anything the valid original did not, nor with other values.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indexRepo } from '../../src/manifests/scan.js';
import { parseFile, type ScannedFile } from '../../src/manifests/scanned-file.js';
import { makePlan, type Plan } from '../../src/plan/plan.js';
import { CONFIG_DEFAULTS } from '../../src/model/validate.js';
import type { PlanError } from '../../src/model/types.js';

const NOW = new Date('2026-12-02T10:00:00Z');

const deployment = (name: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: shop, labels: {app: ${name}}}
spec:
  replicas: 3
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
        - name: app
          image: ghcr.io/example/${name}:1
          resources: {requests: {cpu: 500m, memory: 512Mi}, limits: {cpu: "1", memory: 1Gi}}
`;

const policy = (name: string, strategy: string) => `apiVersion: kerf.getkerf.dev/v1alpha1
kind: RightsizingPolicy
metadata:
  name: ${name}
  namespace: shop
spec:
  mode: auto-patch
  selector:
    matchLabels: {app: ${name}}
  apply:
    strategy: ${strategy}
    fallbackAfter: 10m
    freezeWindows:
      - {start: "2026-12-24T00:00:00Z", end: "2026-12-27T00:00:00Z"}
`;

const recommendation = (name: string) => `apiVersion: kerf.getkerf.dev/v1alpha1
kind: RightsizingRecommendation
metadata:
  name: ${name}
  namespace: shop
spec:
  targetRef:
    kind: Deployment
    name: ${name}
  containers:
    - name: app
      requests:
        cpu: 250m
        memory: 256Mi
      limits:
        cpu: 500m
`;

const MUTABLE: Record<string, string> = {
  'policies/cart.yaml': policy('cart', 'rollout'),
  'policies/web.yaml': policy('web', 'in-place'),
  'recs/cart.yaml': recommendation('cart'),
  'recs/web.yaml': recommendation('web'),
};
const FIXED: Record<string, string> = { 'apps/cart.yaml': deployment('cart'), 'apps/web.yaml': deployment('web') };

function planOf(texts: Record<string, string>): Plan {
  const errors: PlanError[] = [];
  const files = new Map<string, ScannedFile>(Object.entries(texts).sort().map(([name, text]) => [name, parseFile(name, text, errors)]));
  const index = indexRepo('/repo', files, { asWritten: () => true, namespaceOf: () => undefined, renderedNamespaces: () => [], objects: [] }, errors);
  return makePlan({ index, recommendations: index.recommendations, config: CONFIG_DEFAULTS, fleetPaused: false, now: NOW });
}

/** What a plan acts on: each proposal or resize with its exact changes. */
function acts(plan: Plan): Set<string> {
  return new Set(
    plan.decisions
      .filter((decision) => decision.action === 'pull-request' || decision.action === 'in-place')
      .map((decision) => JSON.stringify([decision.target, decision.action, decision.changes.map(({ container, field, to }) => [container, field, to])])),
  );
}

const CHARACTERS = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', ' ', ':', '-', '"', "'", '{', '}', '[', ']', '\n', '#', '&', '*', '.', ',', '!', '|', '>', '%', '@', '`', '\t', '\u00e9'];

type Mutation = { file: string; kind: 'replace' | 'delete' | 'insert'; at: number; char: string };

const mutation: fc.Arbitrary<Mutation> = fc
  .record({
    file: fc.constantFrom(...Object.keys(MUTABLE)),
    kind: fc.constantFrom('replace' as const, 'delete' as const, 'insert' as const),
    position: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
    char: fc.constantFrom(...CHARACTERS),
  })
  .map(({ file, kind, position, char }) => ({ file, kind, at: Math.floor(position * (MUTABLE[file] as string).length), char }));

function mutate(text: string, { kind, at, char }: Mutation): string {
  if (kind === 'insert') return text.slice(0, at) + char + text.slice(at);
  return text.slice(0, at) + (kind === 'replace' ? char : '') + text.slice(at + 1);
}

describe('invalid never acts (property)', () => {
  const original = planOf({ ...FIXED, ...MUTABLE });
  const allowed = acts(original);

  it('the valid original proposes cart (rollout) and resizes web (in-place), with no error', () => {
    expect(original.errors).toEqual([]);
    expect(original.decisions.map((d) => [d.target.name, d.action])).toEqual([['cart', 'pull-request'], ['web', 'in-place']]);
  });

  it('a rejected single-character mutation of a policy or recommendation proposes or resizes nothing new', () => {
    let rejected = 0;
    fc.assert(
      fc.property(mutation, (m) => {
        const texts = { ...FIXED, ...MUTABLE, [m.file]: mutate(MUTABLE[m.file] as string, m) };
        const plan = planOf(texts);
        if (!plan.errors.some((error) => error.severity !== 'warning')) return;
        rejected++;
        for (const act of acts(plan)) expect(allowed, `${JSON.stringify(m)} made the plan act: ${act}`).toContain(act);
      }),
      { numRuns: 300, seed: 9 },
    );
    // The property is about rejected inputs: enough of them must have been tried for it to say anything.
    expect(rejected).toBeGreaterThan(40);
  });
});
