import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, scanRepo } from '../../src/plan/inputs.js';
import { fromKrr, isKrrResult } from '../../src/import/krr.js';
import { DEFAULT_IMPORT_OPTIONS, repoValues } from '../../src/import/resources.js';

const EXAMPLE = join(import.meta.dirname, '../../examples/shop');
// Built from krr's result model (robusta_krr/core/models/result.py), printed as `krr simple --formatter json` prints it.
const FIXTURE = join(import.meta.dirname, 'fixtures/krr-result.json');

async function imported() {
  const { config } = await loadConfig(EXAMPLE, undefined);
  const index = await scanRepo(EXAMPLE, config);
  const result = JSON.parse(await readFile(FIXTURE, 'utf8'));
  expect(isKrrResult(result)).toBe(true);
  return fromKrr(result, repoValues(index), DEFAULT_IMPORT_OPTIONS);
}

describe('fromKrr', () => {
  it('makes one recommendation per workload from krr scans, against the values in the repo', async () => {
    const results = await imported();
    const recommendations = results.flatMap((result) => (result.recommendation ? [result.recommendation] : []));
    expect(recommendations).toEqual([
      {
        name: 'cart',
        namespace: 'shop',
        targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'cart' },
        // 0.0123 cores → 13m; 262,144,000 bytes → 250Mi; krr's unset CPU limit: cart has none, so nothing to remove.
        containers: [{ name: 'app', requests: { cpu: '13m', memory: '250Mi' }, limits: { memory: '250Mi' } }],
        provenance: { recommender: 'krr', percentile: 95, sampleWindow: '336h', generatedAt: '2026-12-01T08:00:00.000000+00:00' },
        status: {},
      },
    ]);
  });

  it('says why every other workload was skipped', async () => {
    const skips = (await imported()).flatMap((result) => result.skips).map(({ target, container, reason }) => ({ target, container, reason }));
    expect(skips).toEqual([
      { target: 'catalog/Deployment/search', container: undefined, reason: 'NotInRepo' },
      { target: 'shop/CronJob/nightly-export', container: undefined, reason: 'UnsupportedKind' },
      { target: 'shop/Deployment/frontend', container: 'web', reason: 'WithinTolerance' },
      { target: 'shop/StatefulSet/redis', container: 'redis', reason: 'NoRecommendation' },
    ]);
  });

  it('removes a limit krr leaves unset when the workload has one', () => {
    const result = {
      strategy: { name: 'simple', settings: {} },
      scans: [{
        object: { name: 'api', container: 'app', namespace: 'shop', kind: 'Deployment' },
        recommended: { requests: { cpu: { value: 0.1 } }, limits: { cpu: { value: null }, memory: { value: null } } },
      }],
    };
    const current = () => [{ name: 'app', requests: { cpu: '1' }, limits: { cpu: '2' } }];
    const [only] = fromKrr(result, current, DEFAULT_IMPORT_OPTIONS);
    expect(only?.recommendation?.containers).toEqual([{ name: 'app', requests: { cpu: '100m' }, limits: { cpu: null } }]);
    expect(only?.recommendation?.provenance).toEqual({ recommender: 'krr' });
  });
});
