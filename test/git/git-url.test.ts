import { describe, expect, it } from 'vitest';
import { withoutCredentials } from '../../src/git/git.js';

describe("origin's URL without credentials", () => {
  it.each([
    ['https://github.com/acme/deploy', { url: 'https://github.com/acme/deploy' }],
    ['https://x-access-token:ghs_abc%2Fdef@github.com/acme/deploy.git', { url: 'https://github.com/acme/deploy.git', password: 'ghs_abc/def' }],
    ['https://ghp_only@github.com/acme/deploy', { url: 'https://github.com/acme/deploy', password: 'ghp_only' }],
    ['https://dana@github.com/acme/deploy', { url: 'https://github.com/acme/deploy' }],
    ['http://user:pw@127.0.0.1:8080/acme/deploy.git', { url: 'http://127.0.0.1:8080/acme/deploy.git', password: 'pw' }],
    ['git@github.com:acme/deploy.git', { url: 'git@github.com:acme/deploy.git' }],
    ['/srv/git/deploy.git', { url: '/srv/git/deploy.git' }],
  ])('%s', (url, expected) => {
    expect(withoutCredentials(url)).toEqual(expected);
  });
});
