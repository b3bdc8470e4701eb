// The merge state of kerf's pull requests, read from GitHub (G5 needs the merge commit and time).
// GitHubPort has no read of one pull request yet; this small port reads just that, and errors go
// through the GitHub port's own description so they name the permission.
import { Octokit } from 'octokit';
import { describeRequestError, type GitHubOptions } from './github.js';
import type { PullRequestReader } from './merged.js';

export function createPullRequestReader(options: Pick<GitHubOptions, 'token' | 'apiUrl' | 'repository'>): PullRequestReader {
  const [owner = '', repo = ''] = options.repository.split('/');
  const octokit = new Octokit({ auth: options.token, baseUrl: options.apiUrl });
  return {
    async getPull(number) {
      try {
        const { data } = await octokit.rest.pulls.get({ owner, repo, pull_number: number });
        return { number, merged: data.merged, mergedAt: data.merged_at, mergeCommitSha: data.merged ? data.merge_commit_sha : null };
      } catch (error) {
        throw describeRequestError(error, 'list pull requests', options.repository, options.token);
      }
    },
  };
}
