// A throwaway self-signed certificate for 127.0.0.1, made with openssl at test time.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificate {
  certFile: string;
  keyFile: string;
  /** PEM of the certificate, which is its own CA (a webhook's caBundle). */
  caPem: string;
  cleanup(): void;
}

export function makeTestCertificate(): TestCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'kerf-tls-'));
  const certFile = join(dir, 'tls.crt');
  const keyFile = join(dir, 'tls.key');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-keyout', keyFile, '-out', certFile,
  ], { stdio: 'ignore' });
  return { certFile, keyFile, caPem: readFileSync(certFile, 'utf8'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
