// Every built entry (the CLI as tests and the demo run it, the npm package's bundled bin, the
// Action's single file) serves every worker job when started as a worker: each job answered from
// each entry as it is answered in this thread.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { scanFile, type FileScan } from '../../src/manifests/scan-file.js';
import { editSeparateFile, type SeparateFileJob } from '../../src/plan/edits.js';
import type { Decision, Workload } from '../../src/model/types.js';
import { EDIT_JOB, SCAN_JOB } from '../../src/util/worker-entry.js';
import { mapInWorkers } from '../../src/util/worker-pool.js';
import { tempRepos } from '../support/temp-repo.js';

const root = join(import.meta.dirname, '../..');
const ENTRIES = ['lib/cli.js', 'lib/kerf-gitops.mjs', 'dist/index.js'];
const repoWith = tempRepos('kerf-worker-entries-');

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  template:
    spec:
      containers:
        - name: app
          resources:
            requests: {cpu: 100m, memory: 128Mi}
`;

function editJob(repo: string): SeparateFileJob {
  const ref = { namespace: 'shop', kind: 'Deployment', name: 'web' };
  const workload = { ref, containers: [], source: { file: 'web.yaml', line: 1, document: 0, name: 'web' } } as unknown as Workload;
  const decision = { target: ref, action: 'pull-request', changes: [{ container: 'app', field: 'requests.cpu', from: '100m', to: '250m' }] } as unknown as Decision;
  return { root: repo, path: 'web.yaml', documents: 1, decisions: [{ at: 0, decision, workload }] };
}

describe('the built entries as workers', () => {
  for (const entry of ENTRIES) {
    const built = existsSync(join(root, entry));
    it.skipIf(!built)(`${entry} serves the scan and the edit jobs${built ? '' : ' (not built: run npm run build)'}`, async () => {
      const repo = await repoWith({ 'web.yaml': DEPLOYMENT });
      const url = pathToFileURL(join(root, entry));
      const scans: FileScan[] = [{ name: 'web.yaml', whole: false }];
      const scanned = await mapInWorkers(scans.map((scan) => ({ root: repo, ...scan })), { entry: url, job: SCAN_JOB, workers: 1 });
      expect(scanned).toEqual(scans.map((scan) => scanFile(repo, scan)));
      const edited = await mapInWorkers([editJob(repo)], { entry: url, job: EDIT_JOB, workers: 1 });
      const here = editSeparateFile(editJob(repo));
      expect(edited).toEqual([here]);
      expect(here.edit?.after).toContain('requests: {cpu: 250m, memory: 128Mi}');
    });
  }
});
