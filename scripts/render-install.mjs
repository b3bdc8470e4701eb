// The release's install.yaml: the default install (templates/, the helper managing its own webhook
// certificate) rendered by `kubectl kustomize`, with the helper image pinned by digest so what runs is
// exactly what release.yml pushed. `node scripts/render-install.mjs IMAGE@sha256:DIGEST > install.yaml`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IMAGE } from './versions.mjs';

const TEMPLATES = fileURLToPath(new URL('../templates', import.meta.url));

/** `reference` is NAME@sha256:<64 hex>; a tag would let the release's manifest and its image part. */
export function renderInstall(reference, kubectl = 'kubectl') {
  const match = /^([^@\s]+)@(sha256:[0-9a-f]{64})$/.exec(reference);
  if (!match) throw new Error(`render-install: ${JSON.stringify(reference)} is not IMAGE@sha256:<digest>`);
  // A kustomization outside the tree, so templates/ stays as users apply it; kustomize takes a base directory by relative path only.
  const dir = mkdtempSync(join(tmpdir(), 'kerf-install-'));
  try {
    writeFileSync(
      join(dir, 'kustomization.yaml'),
      JSON.stringify({
        apiVersion: 'kustomize.config.k8s.io/v1beta1',
        kind: 'Kustomization',
        resources: [relative(dir, TEMPLATES)],
        images: [{ name: IMAGE, newName: match[1], digest: match[2] }],
      }),
    );
    return execFileSync(kubectl, ['kustomize', dir], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.stdout.write(renderInstall(process.argv[2] ?? ''));
}
