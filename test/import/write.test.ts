import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RightsizingRecommendation } from '../../src/model/types.js';
import { writeRecommendations } from '../../src/import/write.js';

let out: string;
beforeEach(async () => {
  out = await mkdtemp(join(tmpdir(), 'kerf-import-write-'));
});
afterEach(async () => {
  await rm(out, { recursive: true, force: true });
});

const cart: RightsizingRecommendation = {
  name: 'cart',
  namespace: 'shop',
  targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'cart' },
  containers: [{ name: 'app', requests: { cpu: '250m', memory: '1' }, limits: { cpu: null } }],
  provenance: { recommender: 'vpa', bound: 'target', generatedAt: '2026-12-01T06:00:00Z' },
  status: {},
};
const CART = { namespace: 'shop', kind: 'Deployment', name: 'cart' };

describe('writeRecommendations', () => {
  it('writes quantities as strings and a removal as null, and the same input gives the same bytes', async () => {
    expect(await writeRecommendations(out, 'vpa', [cart])).toEqual({ written: ['shop/deployment-cart.yaml'], unchanged: [], removed: [] });
    const text = await readFile(join(out, 'shop/deployment-cart.yaml'), 'utf8');
    expect(text).toContain('      requests:\n        cpu: 250m\n        memory: "1"\n      limits:\n        cpu: null\n');
    expect(await writeRecommendations(out, 'vpa', [cart])).toEqual({ written: [], unchanged: ['shop/deployment-cart.yaml'], removed: [] });
    expect(await readFile(join(out, 'shop/deployment-cart.yaml'), 'utf8')).toBe(text);
  });

  it('keeps the file of a workload awaiting data, removes its own stale files, and never touches files it did not write', async () => {
    await writeRecommendations(out, 'vpa', [cart]);
    await mkdir(join(out, 'shop'), { recursive: true });
    await writeFile(join(out, 'shop/by-hand.yaml'), 'apiVersion: kerf.getkerf.dev/v1alpha1\nkind: RightsizingRecommendation\n');
    await writeFile(join(out, 'shop/krr.yaml'), '# Written by kerf-gitops import krr; the next import replaces it.\n');
    expect(await writeRecommendations(out, 'vpa', [], [CART])).toEqual({ written: [], unchanged: [], removed: [] });
    expect(await writeRecommendations(out, 'vpa', [])).toEqual({ written: [], unchanged: [], removed: ['shop/deployment-cart.yaml'] });
    expect(await readFile(join(out, 'shop/by-hand.yaml'), 'utf8')).toContain('RightsizingRecommendation');
    expect(await readFile(join(out, 'shop/krr.yaml'), 'utf8')).toContain('import krr');
  });
});
