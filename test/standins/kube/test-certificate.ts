// A throwaway self-signed certificate for 127.0.0.1, for TLS servers in tests (webhooks).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificate {
  /** PEM certificate; being self-signed, it is also the CA bundle clients trust. */
  cert: string;
  key: string;
  /** base64 of the PEM, as a webhook's clientConfig.caBundle carries it. */
  caBundle: string;
}

export function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function createTestCertificate(): TestCertificate {
  const directory = mkdtempSync(join(tmpdir(), 'kerf-cert-'));
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
      '-keyout', join(directory, 'key.pem'), '-out', join(directory, 'cert.pem'),
    ], { stdio: 'ignore' });
    const cert = readFileSync(join(directory, 'cert.pem'), 'utf8');
    return { cert, key: readFileSync(join(directory, 'key.pem'), 'utf8'), caBundle: Buffer.from(cert).toString('base64') };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
