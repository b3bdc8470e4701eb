// The dry run takes the real run's path with the writes switched off: what it says it would do is
// what the real run then does, branch by branch (title, status, commit message, files, body).
import { describe, expect, it } from 'vitest';
import { runGit } from '../standins/git/run-git.js';
import { harnessPerTest } from '../reconcile/reconcile-harness.js';

const stands = harnessPerTest();

/**
 * The body as a dry run can know it: the metadata marker names no head (there is none yet), and
 * file references are not links (without GitHub there is no web URL to link to).
 */
const withoutMeta = (body: string | null | undefined) =>
  (body ?? '').replace(/<!-- kerf:meta \{.*?\} -->/, '').replace(/\[([^\]]*)\]\(http[^)]*\/blob\/[^)]*\)/g, '$1');

describe('reconcile --dry-run and the real run', () => {
  it('agree on every branch: outcome, title, status, commit message and files alike, the body but for the head and the links', async () => {
    const h = await stands.start();
    const dry = await h.run({ dryRun: true });
    expect(h.gh.requests).toEqual([]);
    const real = await h.run();
    expect(real.errors).toEqual([]);

    const strip = ({ branch, action, reason, title, targets, status }: (typeof dry.pullRequests)[number]) => ({ branch, action, reason, title, targets, status });
    expect(real.pullRequests.map(strip)).toEqual(dry.pullRequests.map(strip));
    const opened = dry.pullRequests.filter((pr) => pr.action === 'opened');
    expect(opened.length).toBeGreaterThan(1);
    for (const pr of opened) {
      const message = await runGit(['log', '-1', '--format=%B', `refs/heads/${pr.branch}`], { cwd: h.bare });
      expect(message.trim()).toBe(pr.commitMessage?.trim());
      const files = await runGit(['diff', '--name-only', 'main', `refs/heads/${pr.branch}`], { cwd: h.bare });
      expect(files.split('\n').filter(Boolean)).toEqual(pr.files);
      const opened = h.gh.state.prs.find((candidate) => candidate.head === pr.branch);
      expect(opened?.title).toBe(pr.title);
      expect(withoutMeta(opened?.body)).toBe(withoutMeta(pr.body));
    }
  });
});
