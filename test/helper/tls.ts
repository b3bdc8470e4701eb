// The stand-in's throwaway certificate, written to files: the helper reads its cert and key from
// paths, as it does from the mounted Secret.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestCertificate } from '../standins/kube/test-certificate.js';

export interface CertificateFiles {
  certFile: string;
  keyFile: string;
  /** PEM of the certificate, which is its own CA. */
  caPem: string;
  /** base64 of the PEM, as a webhook's clientConfig.caBundle carries it. */
  caBundle: string;
  cleanup(): void;
}

export function certificateFiles(): CertificateFiles {
  const { cert, key, caBundle } = createTestCertificate();
  const dir = mkdtempSync(join(tmpdir(), 'kerf-tls-'));
  const certFile = join(dir, 'tls.crt');
  const keyFile = join(dir, 'tls.key');
  writeFileSync(certFile, cert);
  writeFileSync(keyFile, key, { mode: 0o600 });
  return { certFile, keyFile, caPem: cert, caBundle, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
