import { describe, expect, it } from 'vitest';
import type { KubeObject, Pod } from '../../src/cluster/objects.js';
import { nextEvictions } from '../../src/helper/on-delete.js';
import { aConfig, aPolicy } from '../support/builders.js';
import { aPod } from './builders.js';

const NOW = new Date('2026-03-02T10:00:00Z');
const secondsAgo = (seconds: number) => new Date(NOW.getTime() - seconds * 1000).toISOString();

function statefulSet(type = 'OnDelete', replicas = 3): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'db', namespace: 'shop' },
    spec: { replicas, updateStrategy: { type } },
    status: { updateRevision: 'db-new', currentRevision: 'db-old' },
  };
}

function member(ordinal: number, revision: 'db-old' | 'db-new', ready: { since: string } | false = { since: secondsAgo(60) }): Pod {
  return aPod({
    name: `db-${ordinal}`,
    owner: { kind: 'StatefulSet', name: 'db' },
    labels: { app: 'db', 'controller-revision-hash': revision },
    ready,
  });
}

const outdatedSet = () => [member(0, 'db-old'), member(1, 'db-old'), member(2, 'db-old')];

describe('nextEvictions', () => {
  it.each([
    ['OD1: highest ordinal first, one per pass by default', statefulSet(), outdatedSet(), {}, { evict: ['db-2'] }],
    ['OD1: onDelete.maxPodDeletesPerRun allows more per pass', statefulSet(), outdatedSet(), { maxPodDeletesPerRun: 2, settle: '30s' }, { evict: ['db-2', 'db-1'] }],
    ['OD1: pods already on the update revision are left alone', statefulSet(), [member(0, 'db-old'), member(1, 'db-old'), member(2, 'db-new')], {}, { evict: ['db-1'] }],
    ['OD1: nothing outdated: nothing to do', statefulSet(), [member(0, 'db-new'), member(1, 'db-new'), member(2, 'db-new')], {}, { evict: [], wait: 'up-to-date' }],
    ['OD1: a RollingUpdate StatefulSet is its controller\'s business', statefulSet('RollingUpdate'), outdatedSet(), {}, { evict: [], wait: 'not-on-delete' }],
    ['OD2: a pod not Ready holds every eviction', statefulSet(), [member(0, 'db-old'), member(1, 'db-old', false), member(2, 'db-old')], {}, { evict: [], wait: 'not-ready' }],
    ['OD2: a missing pod (being replaced) holds every eviction', statefulSet(), [member(0, 'db-old'), member(1, 'db-old')], {}, { evict: [], wait: 'not-ready' }],
    ['OD2: a pod Ready for less than settle (30s) holds', statefulSet(), [member(0, 'db-old'), member(1, 'db-old'), member(2, 'db-new', { since: secondsAgo(10) })], {}, { evict: [], wait: 'settling' }],
    ['OD2: onDelete.settle is the policy\'s', statefulSet(), [member(0, 'db-old'), member(1, 'db-old'), member(2, 'db-new', { since: secondsAgo(10) })], { maxPodDeletesPerRun: 1, settle: '5s' }, { evict: ['db-1'] }],
  ])('%s', (_name, set, pods, onDelete, expected) => {
    const policy = aPolicy(Object.keys(onDelete).length > 0 ? { onDelete: onDelete as { maxPodDeletesPerRun: number; settle: string } } : {});
    expect(nextEvictions({ statefulSet: set, pods, policy, config: aConfig(), now: NOW })).toEqual(expected);
  });

  it.each([
    ['OD2: Ready at a whole second 30s ago may be only 29.001s: not settled yet', '2026-03-02T09:59:30Z', { evict: [], wait: 'settling' }],
    ['OD2: Ready 31s ago (whole second) is settled', '2026-03-02T09:59:29Z', { evict: ['db-2'] }],
  ])('%s', (_name, since, expected) => {
    const pods = [member(0, 'db-old'), member(1, 'db-old'), member(2, 'db-old', { since })];
    expect(nextEvictions({ statefulSet: statefulSet(), pods, policy: aPolicy(), config: aConfig(), now: NOW })).toEqual(expected);
  });

  it('OD2: a pod still terminating holds every eviction', () => {
    const pods = outdatedSet();
    pods[2]!.metadata.deletionTimestamp = secondsAgo(1);
    expect(nextEvictions({ statefulSet: statefulSet(), pods, policy: aPolicy(), config: aConfig(), now: NOW }).wait).toBe('not-ready');
  });

  it.each([
    ['Z1: a freeze', aConfig({ freeze: { now: true, windows: [] } }), 'FreezeWindow'],
    ['Z4: a pause', aConfig({ pause: true }), 'Paused'],
  ])('%s holds pod replacement', (_name, config, hold) => {
    expect(nextEvictions({ statefulSet: statefulSet(), pods: outdatedSet(), policy: aPolicy(), config, now: NOW })).toEqual({ evict: [], wait: 'held', hold });
  });
});
