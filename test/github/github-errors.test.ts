import { RequestError } from 'octokit';
import { describe, expect, it } from 'vitest';
import { describeRequestError, gitHubOptionsFromEnv, GitHubError } from '../../src/github/github.js';
import { redact } from '../../src/util/redact.js';

const TOKEN = 'ghs_unit_secret';

function requestError(status: number, data: object, headers: Record<string, string> = {}): RequestError {
  return new RequestError(String((data as { message?: string }).message ?? 'failed'), status, {
    request: { method: 'POST', url: 'https://api.github.com/repos/acme/deploy/pulls', headers: { authorization: `token ${TOKEN}` } },
    response: { status, url: 'https://api.github.com/repos/acme/deploy/pulls', headers, data },
  });
}

describe('GitHub errors name what to change', () => {
  it.each([
    [
      'Actions may not create PRs (403)',
      requestError(403, { message: 'GitHub Actions is not permitted to create or approve pull requests.' }),
      'open a pull request',
      'ActionsMayNotCreatePullRequests',
      'GitHub Actions may not open pull requests in acme/deploy: turn on the repository setting "Allow GitHub Actions to create and approve pull requests" (Settings → Actions → General → Workflow permissions)',
    ],
    [
      'no statuses permission (403)',
      requestError(403, { message: 'Resource not accessible by integration' }),
      'set a commit status',
      'MissingPermission',
      'GitHub refused to set a commit status in acme/deploy (403 Resource not accessible by integration): the token needs the permission "statuses: write"',
    ],
    [
      'no pull-requests write permission (404 on a write)',
      requestError(404, { message: 'Not Found' }),
      'comment',
      'MissingPermission',
      'GitHub refused to comment in acme/deploy (404 Not Found): the token needs the permission "pull-requests: write"',
    ],
    [
      'no pull-requests permission',
      requestError(403, { message: 'Resource not accessible by integration' }),
      'open a pull request',
      'MissingPermission',
      'GitHub refused to open a pull request in acme/deploy (403 Resource not accessible by integration): the token needs the permission "pull-requests: write"',
    ],
    [
      'a primary rate limit after the budget',
      requestError(403, { message: 'API rate limit exceeded for installation ID 1.' }, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1796000000' }),
      'list pull requests',
      'RateLimited',
      'GitHub: cannot list pull requests in acme/deploy: rate limited until 2026-11-30T00:53:20.000Z (API rate limit exceeded for installation ID 1.); kerf gave up after its retries',
    ],
    [
      'a PR that already exists (422)',
      requestError(422, { message: 'Validation Failed', errors: [{ resource: 'PullRequest', code: 'custom', message: 'A pull request already exists for acme:kerf/a.' }] }),
      'open a pull request',
      'PullRequestExists',
      'GitHub: a pull request for this branch already exists in acme/deploy',
    ],
    ['a server error', requestError(502, { message: 'Bad Gateway' }), 'comment', 'GitHubUnavailable', 'GitHub: cannot comment in acme/deploy: 502 Bad Gateway, still failing after retries'],
  ] as const)('%s', (_, error, operation, code, message) => {
    const described = describeRequestError(error, operation, 'acme/deploy', TOKEN);
    expect(described).toBeInstanceOf(GitHubError);
    expect({ code: described.code, message: described.message }).toEqual({ code, message });
  });

  it('a 404 on a read is not a permission problem', () => {
    expect(describeRequestError(requestError(404, { message: 'Not Found' }), 'read commit statuses', 'acme/deploy', TOKEN).code).toBe('GitHubRequestFailed');
  });

  it('never shows the token, in any form it travels in', () => {
    const leaky = requestError(400, { message: `bad token ${TOKEN} / ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}` });
    const described = describeRequestError(leaky, 'comment', 'acme/deploy', TOKEN);
    expect(described.message).toBe('GitHub: cannot comment in acme/deploy: 400 bad token *** / ***');
    expect(redact(`https://x-access-token:${encodeURIComponent('a/b+c')}@host`, ['a/b+c'])).toBe('https://x-access-token:***@host');
  });
});

describe('GitHub from the environment', () => {
  it('reads GITHUB_TOKEN, GITHUB_REPOSITORY and GITHUB_API_URL (GHES too)', () => {
    expect(gitHubOptionsFromEnv({ GITHUB_TOKEN: 't', GITHUB_REPOSITORY: 'acme/deploy' })).toEqual({ token: 't', repository: 'acme/deploy', apiUrl: 'https://api.github.com' });
    expect(gitHubOptionsFromEnv({ GITHUB_TOKEN: 't', GITHUB_REPOSITORY: 'acme/deploy', GITHUB_API_URL: 'https://ghe.example.com/api/v3/' }).apiUrl).toBe('https://ghe.example.com/api/v3');
  });

  it.each([
    [{}, 'reconcile needs GITHUB_TOKEN and GITHUB_REPOSITORY in the environment (or --dry-run, which needs neither)'],
    [{ GITHUB_TOKEN: 't' }, 'reconcile needs GITHUB_REPOSITORY in the environment (or --dry-run, which needs neither)'],
    [{ GITHUB_TOKEN: 't', GITHUB_REPOSITORY: 'deploy' }, 'GITHUB_REPOSITORY must be owner/repo, got "deploy"'],
  ])('refuses %o', (env, message) => {
    expect(() => gitHubOptionsFromEnv(env)).toThrow(message);
  });
});
