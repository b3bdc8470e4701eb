// All the resource edits of one file on one parse (issue 15): the file put together from its
// edited documents reads byte for byte as the same edits made one at a time on the whole text.
import { describe, expect, it } from 'vitest';
import { EditError } from '../../src/manifests/edit-error.js';
import { editResources, ResourceFileEditor } from '../../src/manifests/edit-resources.js';
import type { DocumentTarget, ResourceEdit } from '../../src/manifests/edit-resources.js';
import { documentBounds } from '../../src/manifests/screen.js';

function workload(i: number): string {
  const quoted = i % 4 === 1 ? '"' : '';
  const resources =
    i % 3 === 0
      ? `          resources:\n            requests: {cpu: ${quoted}${100 + i}m${quoted}, memory: 128Mi}  # flow\n`
      : i % 3 === 1
        ? `          resources:\n            limits:\n              memory: ${quoted}256Mi${quoted}\n`
        : '';
  return `# web-${i}: owned by team ${i % 5}
apiVersion: apps/v1
kind: ${i % 2 === 0 ? 'Deployment' : 'StatefulSet'}
metadata:
  name: web-${i}
spec:
  template:
    spec:
      containers:
        - name: app   # the server
          image: example/web:${i}
${resources}        - name: sidecar
          image: example/proxy
`;
}

const service = (i: number) => `apiVersion: v1\nkind: Service\nmetadata:\n  name: web-${i}\nspec:\n  ports: [{port: 80}]\n`;

/** Workloads between Services, with an explicit end marker and a directive now and then. */
function manyWorkloads(count: number): { text: string; targets: DocumentTarget[] } {
  const parts: string[] = [];
  const targets: DocumentTarget[] = [];
  for (let i = 0; i < count; i++) {
    targets.push({ document: parts.length, kind: i % 2 === 0 ? 'Deployment' : 'StatefulSet', name: `web-${i}` });
    parts.push(workload(i), service(i));
  }
  const text = parts
    .map((part, k) => (k === 0 ? part : k % 10 === 4 ? `...\n%YAML 1.2\n---\n${part}` : k % 10 === 7 ? `---\n${part}...\n` : `---\n${part}`))
    .join('');
  return { text, targets };
}

const editsFor = (i: number): ResourceEdit[] => [
  { container: 'app', field: 'requests.cpu', to: `${200 + i}m` },
  { container: i % 2 === 0 ? 'sidecar' : 'app', field: 'limits.memory', to: i % 5 === 0 ? null : `${512 + i}Mi` },
];

describe('ResourceFileEditor', () => {
  it('edits every workload of a file on one parse, byte for byte as the edits one at a time', () => {
    const { text, targets } = manyWorkloads(60);
    const expected = targets.reduce((current, target, i) => editResources(current, target, editsFor(i), 'web.yaml'), text);
    const editor = new ResourceFileEditor(text, 'web.yaml');
    targets.forEach((target, i) => editor.commit(target.document, editor.edit(target, editsFor(i))));
    expect(editor.render()).toBe(expected);
    expect(expected).not.toBe(text);
  });

  it('parses only the documents it edits when the scan counted the documents the markers show, with the same bytes', () => {
    const { text, targets } = manyWorkloads(60);
    const expected = targets.reduce((current, target, i) => editResources(current, target, editsFor(i), 'web.yaml'), text);
    expect(documentBounds(text)).toHaveLength(120);
    const editor = new ResourceFileEditor(text, 'web.yaml', { documents: 120 });
    targets.forEach((target, i) => editor.commit(target.document, editor.edit(target, editsFor(i))));
    expect(editor.render()).toBe(expected);
    // A count that does not match the markers: the whole text is parsed, as without one.
    const counted = new ResourceFileEditor(text, 'web.yaml', { documents: 119 });
    targets.forEach((target, i) => counted.commit(target.document, counted.edit(target, editsFor(i))));
    expect(counted.render()).toBe(expected);
  });

  it('builds a second edit of a document on its first', () => {
    const { text, targets } = manyWorkloads(3);
    const target = targets[1] as DocumentTarget;
    const first: ResourceEdit[] = [{ container: 'app', field: 'requests.memory', to: '200Mi' }];
    const second: ResourceEdit[] = [{ container: 'app', field: 'requests.cpu', to: '3' }];
    const editor = new ResourceFileEditor(text, 'web.yaml');
    editor.commit(target.document, editor.edit(target, first));
    editor.commit(target.document, editor.edit(target, second));
    expect(editor.render()).toBe(editResources(editResources(text, target, first, 'web.yaml'), target, second, 'web.yaml'));
  });

  it('changes nothing until an edit is committed, and renders pending edits on request', () => {
    const { text, targets } = manyWorkloads(2);
    const target = targets[0] as DocumentTarget;
    const editor = new ResourceFileEditor(text, 'web.yaml');
    const slice = editor.edit(target, editsFor(0));
    expect(editor.render()).toBe(text);
    expect(editor.render(new Map([[target.document, slice]]))).toBe(editResources(text, target, editsFor(0), 'web.yaml'));
  });

  it('refuses a document that is not the target, and keeps the edits already committed', () => {
    const { text, targets } = manyWorkloads(2);
    const editor = new ResourceFileEditor(text, 'web.yaml');
    editor.commit(0, editor.edit(targets[0] as DocumentTarget, editsFor(0)));
    const committed = editor.render();
    expect(() => editor.edit({ document: 1, kind: 'Deployment', name: 'web-1' }, editsFor(1))).toThrow(EditError);
    expect(editor.render()).toBe(committed);
  });
});
