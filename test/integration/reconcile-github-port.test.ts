// The GitHub port's own behaviour over real octokit: writes paced one at a time with the
// configured spacing (the throttling plugin takes kerf's queues), reads not held up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitHub } from '../../src/github/github.js';
import { startGitServer, type GitServer } from '../standins/git/git-server.js';
import { startGitHub, type GitHubStandIn } from '../standins/github/github-server.js';

const TOKEN = 'ghs_port_token';
let git: GitServer;
let gh: GitHubStandIn;

beforeAll(async () => {
  git = await startGitServer({ token: TOKEN });
  await git.createBareRepo('acme', 'paced', { files: { 'a.txt': 'a\n' } });
  gh = await startGitHub({ git, token: TOKEN, owner: 'acme', repo: 'paced' });
});
afterAll(async () => {
  await gh.close();
  await git.close();
});

describe('GitHub port pacing', () => {
  it('spaces writes by writeMs and notifying writes by notificationMs, one at a time', async () => {
    const head = (await git.headOf('acme', 'paced', 'main')) as string;
    await git.pushAs('acme', 'paced', { name: 'k', email: 'k@example.test' }, 'kerf/a', { 'a.txt': 'b\n' });
    const port = createGitHub({ token: TOKEN, apiUrl: gh.url, repository: 'acme/paced', pacing: { writeMs: 150, notificationMs: 400 } });
    const times: number[] = [];
    const stamp = async (work: Promise<unknown>) => {
      await work;
      times.push(Date.now());
    };
    const started = Date.now();
    await Promise.all([
      stamp(port.setWindowStatus(head, { state: 'pending', description: 'one' })),
      stamp(port.setWindowStatus(head, { state: 'pending', description: 'two' })),
      stamp(port.setWindowStatus(head, { state: 'success', description: 'three' })),
    ]);
    const statuses = gh.state.statuses.map((s) => s.description);
    expect(statuses).toEqual(['one', 'two', 'three']);
    expect(Math.max(...times) - started).toBeGreaterThanOrEqual(300);

    const pr = await port.createPull({ branch: 'kerf/a', base: 'main', title: 't', body: 'b' });
    const before = Date.now();
    await port.comment(pr.number, 'first');
    await port.comment(pr.number, 'second');
    expect(Date.now() - before).toBeGreaterThanOrEqual(400);
    const readStart = Date.now();
    await port.listOpenPulls();
    expect(Date.now() - readStart).toBeLessThan(400);
  });
});
