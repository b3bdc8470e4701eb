// The `kubeconfig` input: what is masked (the whole value, the credentials in it, a proxy's user
// info; every line of a value that does not parse).
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { kubeconfigSecrets } from '../../src/action/kubeconfig.js';

const CONFIG = stringify({
  apiVersion: 'v1',
  kind: 'Config',
  clusters: [{ name: 'prod', cluster: { server: 'https://prod.example:6443', 'certificate-authority-data': 'Q0EtUFVCTElD', 'proxy-url': 'http://proxyuser:proxypass@proxy.example:3128' } }],
  users: [
    { name: 'bearer', user: { token: 'eyJhbGciOi.bearer-token' } },
    { name: 'certs', user: { 'client-certificate-data': 'Q0VSVC1EQVRB', 'client-key-data': 'S0VZLURBVEE=' } },
    { name: 'basic', user: { username: 'admin', password: 'hunter22' } },
    { name: 'oidc', user: { 'auth-provider': { name: 'oidc', config: { 'client-id': 'kube', 'client-secret': 'oidc-client-secret', 'id-token': 'oidc-id-token', 'refresh-token': 'oidc-refresh-token' } } } },
    { name: 'exec', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'aws', args: ['eks', 'get-token'], env: [{ name: 'AWS_SECRET_ACCESS_KEY', value: 'aws-secret-value' }, { name: 'AWS_REGION', value: 'eu-west-1' }] } } },
  ],
  contexts: [{ name: 'prod', context: { cluster: 'prod', user: 'bearer' } }],
  'current-context': 'prod',
});

describe('kubeconfigSecrets', () => {
  it('masks the whole value and every credential in it, not the names around them', () => {
    const secrets = kubeconfigSecrets(CONFIG);
    expect(secrets[0]).toBe(CONFIG);
    expect(new Set(secrets.slice(1))).toEqual(
      new Set(['eyJhbGciOi.bearer-token', 'Q0VSVC1EQVRB', 'S0VZLURBVEE=', 'hunter22', 'oidc-client-secret', 'oidc-id-token', 'oidc-refresh-token', 'aws-secret-value', 'proxyuser:proxypass']),
    );
    for (const plain of ['admin', 'aws', 'eks', 'eu-west-1', 'prod', 'https://prod.example:6443', 'kube']) expect(secrets).not.toContain(plain);
  });

  it('masks every line of a value that does not parse (a parser quotes the lines around its fault)', () => {
    const broken = 'apiVersion: v1\nusers:\n  - name: a\n    user: {token: "unterminated-secret\n';
    expect(kubeconfigSecrets(broken)).toEqual([broken, 'apiVersion: v1', 'users:', '- name: a', 'user: {token: "unterminated-secret']);
  });
});
