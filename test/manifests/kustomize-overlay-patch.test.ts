import { describe, expect, it } from 'vitest';
import { KustomizeError } from '../../src/manifests/kustomize-error.js';
import { addPatchToKustomization, renderOverlayPatch, type OverlayPatchTarget } from '../../src/manifests/kustomize-overlay-patch.js';

const HEADER = '# Written by kerf-gitops: CPU and memory of workloads whose manifests other overlays share.\n';
const WEB: OverlayPatchTarget = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' };
const DB: OverlayPatchTarget = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db' };

const webPatch = (containers: string) =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  template:\n    spec:\n${containers}`;

describe('renderOverlayPatch', () => {
  it.each([
    {
      name: 'a new file: one document with only the CPU/memory fields, quantities quoted where YAML would read a number',
      existing: undefined,
      target: WEB,
      containers: [{ name: 'app', requests: { cpu: '1' }, limits: { memory: null } }],
      order: undefined,
      expected: HEADER + webPatch('      containers:\n        - name: app\n          resources:\n            requests:\n              cpu: "1"\n            limits:\n              memory: null\n'),
    },
    {
      name: 'other containers are named, value-less, in rendered order so kustomize keeps the order',
      existing: undefined,
      target: WEB,
      containers: [{ name: 'proxy', limits: { memory: '64Mi' } }],
      order: { containers: ['app', 'proxy'], initContainers: [] },
      expected: HEADER + webPatch('      containers:\n        - name: app\n        - name: proxy\n          resources:\n            limits:\n              memory: 64Mi\n'),
    },
    {
      name: 'an init container (native sidecar) goes under initContainers',
      existing: undefined,
      target: WEB,
      containers: [{ name: 'mesh', init: true, requests: { memory: '32Mi' } }],
      order: undefined,
      expected: HEADER + webPatch('      initContainers:\n        - name: mesh\n          resources:\n            requests:\n              memory: 32Mi\n'),
    },
    {
      name: 'an existing document of the target is updated: new values merge over the old, the rest keeps its bytes',
      existing: `# kept\n${webPatch('      containers:\n        - name: app\n          resources:\n            requests:\n              cpu: 1\n')}---\n# db, kept as written\napiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\n`,
      target: WEB,
      containers: [{ name: 'app', requests: { memory: '1Gi' } }],
      order: undefined,
      expected: `# kept\n${webPatch('      containers:\n        - name: app\n          resources:\n            requests:\n              cpu: 1\n              memory: 1Gi\n')}---\n# db, kept as written\napiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\n`,
    },
    {
      name: 'another target is appended as a new document, in the file’s CRLF line endings',
      existing: `${HEADER}${webPatch('      containers:\n        - name: app\n')}`.replace(/\n/g, '\r\n'),
      target: DB,
      containers: [{ name: 'postgres', requests: { cpu: '2' } }],
      order: undefined,
      expected: `${HEADER}${webPatch('      containers:\n        - name: app\n')}---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: db\nspec:\n  template:\n    spec:\n      containers:\n        - name: postgres\n          resources:\n            requests:\n              cpu: "2"\n`.replace(/\n/g, '\r\n'),
    },
    {
      name: 'a file without a final newline gets one before the separator',
      existing: 'apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: other}',
      target: DB,
      containers: [{ name: 'postgres', limits: { cpu: '500m' } }],
      order: undefined,
      expected: 'apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: other}\n---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: db\nspec:\n  template:\n    spec:\n      containers:\n        - name: postgres\n          resources:\n            limits:\n              cpu: 500m\n',
    },
  ])('$name', ({ existing, target, containers, order, expected }) => {
    expect(renderOverlayPatch(existing, target, containers, order === undefined ? {} : { order })).toBe(expected);
  });

  it('keeps what a person added to the document (annotation, image pin, env, other resources, comments) byte for byte (R1)', () => {
    const existing = [
      '# tuned by the shop team, see OPS-12',
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata:',
      '  name: web',
      '  namespace: shop',
      '  annotations:',
      '    team: shop # who to ask',
      'spec:',
      '  template:',
      '    spec:',
      '      containers:',
      '        - name: app',
      '          image: web:1.4.2 # pinned until the fix ships',
      '          env:',
      '            - {name: LOG_LEVEL, value: debug}',
      '          resources:',
      '            requests:',
      '              cpu: 1',
      '              ephemeral-storage: 1Gi',
      '',
    ].join('\n');
    const result = renderOverlayPatch(existing, WEB, [{ name: 'app', requests: { cpu: '500m' }, limits: { cpu: '2' } }]);
    expect(result).toBe(existing.replace('              cpu: 1\n', '              cpu: 500m\n').replace('ephemeral-storage: 1Gi\n', 'ephemeral-storage: 1Gi\n            limits:\n              cpu: 2\n'));
  });

  it.each([
    {
      name: 'null (a strategic-merge delete) replaces a value and is added where the key is missing',
      existing: webPatch('      containers:\n        - name: app\n          resources:\n            limits:\n              cpu: 2 # old\n'),
      containers: [{ name: 'app', limits: { cpu: null, memory: null } }],
      order: undefined,
      expected: webPatch('      containers:\n        - name: app\n          resources:\n            limits:\n              cpu: null # old\n              memory: null\n'),
    },
    {
      name: 'a container the patch does not list yet is appended by name, in the list’s style',
      existing: webPatch('      containers:\n      - name: app\n        image: web:1\n'),
      containers: [{ name: 'proxy', requests: { memory: '64Mi' } }],
      order: { containers: ['app', 'proxy'], initContainers: [] },
      expected: webPatch('      containers:\n      - name: app\n        image: web:1\n      - name: proxy\n        resources:\n          requests:\n            memory: 64Mi\n'),
    },
    {
      name: 'an init container gets an initContainers list under the pod spec',
      existing: webPatch('      containers:\n        - name: app\n      # mesh sidecar below\n'),
      containers: [{ name: 'mesh', init: true, requests: { cpu: '50m' } }],
      order: undefined,
      expected: webPatch('      containers:\n        - name: app\n      initContainers:\n        - name: mesh\n          resources:\n            requests:\n              cpu: 50m\n      # mesh sidecar below\n'),
    },
  ])('$name', ({ existing, containers, order, expected }) => {
    expect(renderOverlayPatch(existing, WEB, containers, order === undefined ? {} : { order })).toBe(expected);
  });

  it('refuses a document a person reshaped so kerf cannot edit it in place, rather than rewrite it', () => {
    expect(() => renderOverlayPatch(webPatch('      {containers: [{name: app}]}\n').replace('    spec:\n      {', '    spec: {').replace(']}\n', ']}\n'), WEB, [{ name: 'app', requests: { cpu: '1' } }], { file: 'o/kerf-resources.yaml' })).toThrowError(
      expect.objectContaining({ code: 'KUSTOMIZE_BAD_PATCH_FILE', message: expect.stringContaining('o/kerf-resources.yaml') }),
    );
  });

  it('refuses to overwrite a patch file that does not parse, naming the file', () => {
    expect(() => renderOverlayPatch('a: [\n', WEB, [], { file: 'overlays/x/kerf-resources.yaml' })).toThrowError(
      expect.objectContaining({ code: 'KUSTOMIZE_BAD_PATCH_FILE', message: expect.stringContaining('overlays/x/kerf-resources.yaml') }),
    );
  });
});

describe('addPatchToKustomization', () => {
  it.each([
    { name: 'no patches key: a block list at the end, sequence indent 0 like resources', text: 'resources:\n- a.yaml\n', expected: 'resources:\n- a.yaml\npatches:\n- path: kerf-resources.yaml\n' },
    { name: 'no patches key, 2-space style, no final newline', text: 'resources:\n  - a.yaml\nnamespace: x', expected: 'resources:\n  - a.yaml\nnamespace: x\npatches:\n  - path: kerf-resources.yaml\n' },
    {
      name: 'existing block list with a target, comments stay where they were',
      text: 'patches:\n    - path: p.yaml # why\n      target:\n        kind: Deployment\n    # trailing note\nnamespace: n\n',
      expected: 'patches:\n    - path: p.yaml # why\n      target:\n        kind: Deployment\n    - path: kerf-resources.yaml\n    # trailing note\nnamespace: n\n',
    },
    { name: 'dash followed by several spaces, CRLF', text: 'patches:\r\n-   path: p.yaml\r\n', expected: 'patches:\r\n-   path: p.yaml\r\n-   path: kerf-resources.yaml\r\n' },
    { name: 'empty flow list', text: 'patches: []\n', expected: 'patches: [{path: kerf-resources.yaml}]\n' },
    { name: 'flow list with an entry', text: 'patches: [{path: a.yaml}]\n', expected: 'patches: [{path: a.yaml}, {path: kerf-resources.yaml}]\n' },
    { name: 'patches key without a list', text: 'patches:\nresources:\n- a\n', expected: 'patches:\n- path: kerf-resources.yaml\nresources:\n- a\n' },
    { name: 'legacy patchesStrategicMerge is the only patch list: extended in its style', text: 'bases:\n- ../x\npatchesStrategicMerge:\n- a.yaml\n', expected: 'bases:\n- ../x\npatchesStrategicMerge:\n- a.yaml\n- kerf-resources.yaml\n' },
    { name: 'both lists: patches wins, as it applies later', text: 'patchesStrategicMerge:\n- a.yaml\npatches:\n- path: b.yaml\n', expected: 'patchesStrategicMerge:\n- a.yaml\npatches:\n- path: b.yaml\n- path: kerf-resources.yaml\n' },
    { name: 'already listed: unchanged', text: 'patches:\n- path: ./kerf-resources.yaml\n', expected: 'patches:\n- path: ./kerf-resources.yaml\n' },
    { name: 'already in the legacy list: unchanged', text: 'patchesStrategicMerge:\n- kerf-resources.yaml\n', expected: 'patchesStrategicMerge:\n- kerf-resources.yaml\n' },
  ])('$name', ({ text, expected }) => {
    expect(addPatchToKustomization(text)).toBe(expected);
  });

  it('refuses a kustomization that is not a mapping, naming the file', () => {
    expect(() => addPatchToKustomization('- a\n', 'kerf-resources.yaml', 'apps/kustomization.yaml')).toThrow(KustomizeError);
    expect(() => addPatchToKustomization('- a\n', 'kerf-resources.yaml', 'apps/kustomization.yaml')).toThrow(/apps\/kustomization\.yaml/);
  });
});
