// Sharing strings must never change the data: the same objects, keys, order and values after.
import { describe, expect, it } from 'vitest';
import { StringPool } from '../../src/util/string-pool.js';

describe('StringPool', () => {
  it('shares strings in place, leaving every object, key order and value as it was', () => {
    const text = `${'x'.repeat(40)}ghcr.io/example/cart:1.2.3${'y'.repeat(40)}`;
    const data = {
      ref: { namespace: 'shop', kind: 'Deployment', name: 'cart' },
      labels: { 'app.kubernetes.io/name': 'cart', tier: 'web' },
      containers: [{ name: 'app', image: text.slice(40, 66), envNames: ['LOG_LEVEL', 'POD_NAME'], requests: { cpu: '200m' }, limits: {} }],
      replicas: 3,
      helm: undefined,
      nested: [[['a', 1, null, true]]],
    };
    const before = structuredClone(data);
    const pool = new StringPool();
    const containers = data.containers;
    expect(pool.share(data)).toBe(data);
    expect(data).toStrictEqual(before);
    expect(Object.keys(data)).toEqual(Object.keys(before));
    expect('helm' in data).toBe(true);
    expect(data.containers).toBe(containers);
    expect(data.containers[0]?.image).toBe('ghcr.io/example/cart:1.2.3');
  });

  it('gives back an equal string for every string, the first one it saw of each', () => {
    const pool = new StringPool();
    const long = 'team.example.com/owner-platform';
    expect(pool.string(long)).toBe(long);
    expect(pool.string(`team.example.com/${'owner-platform'}`)).toBe(long);
    expect(pool.string('')).toBe('');
    expect(pool.share(['apps/v1', 'apps/v1', 'Deployment'])).toEqual(['apps/v1', 'apps/v1', 'Deployment']);
  });
});

describe('StringPool on what a YAML parse can give', () => {
  it('visits circular data (an alias of an enclosing node) once, and leaves a Buffer as it is', () => {
    const loop: Record<string, unknown> = { name: 'loop' };
    loop.self = loop;
    const bytes = Buffer.from('kerf');
    const data = { loop, bytes };
    new StringPool().share(data);
    expect(data.loop.self).toBe(loop);
    expect(data.bytes).toBe(bytes);
    expect(bytes.toString()).toBe('kerf');
  });
});
