// The webhook's serving certificate without cert-manager, as Kyverno and Gatekeeper keep theirs: a
// self-signed CA and a serving certificate it signs, the CA handed to the API server as the webhook's
// caBundle. Pure but for key generation and randomness: the time is an argument. Node's crypto makes
// keys and reads certificates but cannot issue them, so node-forge builds and signs them.
import { X509Certificate, createPrivateKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import forge from 'node-forge';

const DAY_MS = 24 * 60 * 60 * 1000;
/** The CA lives a year and is replaced 90 days before its end; the serving certificate lives 90 days, renewed at 30 left. */
export const CA_LIFETIME_MS = 365 * DAY_MS;
export const CA_RENEW_BEFORE_MS = 90 * DAY_MS;
export const SERVING_LIFETIME_MS = 90 * DAY_MS;
export const SERVING_RENEW_BEFORE_MS = 30 * DAY_MS;
/** Certificates start a little in the past, so a node whose clock runs behind still accepts them. */
const BACKDATE_MS = 5 * 60 * 1000;

/** What the Secret holds (as PEM): ca.crt is the bundle, the current CA first, then the one it replaced while still valid. */
export interface ServingMaterial {
  caBundle: string;
  caKey: string;
  tlsCert: string;
  tlsKey: string;
}

/** The Secret's data keys; tls.crt and tls.key are the names cert-manager and kubernetes.io/tls use. */
export const SECRET_KEYS = { caBundle: 'ca.crt', caKey: 'ca.key', tlsCert: 'tls.crt', tlsKey: 'tls.key' } as const;

export type Renewal = 'none' | 'serving' | 'ca';

function keyPair(): { privateKey: string; publicKey: string } {
  return generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
}

function certificate(publicKey: string, subject: string, now: Date, lifetimeMs: number): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey);
  // 16 random bytes, first bit clear: a positive serial, as RFC 5280 asks.
  const serial = randomBytes(16);
  serial[0] = (serial[0] as number) & 0x7f;
  cert.serialNumber = serial.toString('hex');
  cert.validity.notBefore = new Date(now.getTime() - BACKDATE_MS);
  cert.validity.notAfter = new Date(now.getTime() + lifetimeMs);
  cert.setSubject([{ name: 'commonName', value: subject }]);
  return cert;
}

function issueCa(now: Date): { cert: string; key: string } {
  const { privateKey, publicKey } = keyPair();
  const cert = certificate(publicKey, `kerf-gitops-webhook-ca@${Math.floor(now.getTime() / 1000)}`, now, CA_LIFETIME_MS);
  cert.setIssuer(cert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(privateKey), forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: privateKey };
}

function issueServing(caCert: string, caKey: string, hosts: readonly string[], now: Date): { cert: string; key: string } {
  const { privateKey, publicKey } = keyPair();
  const ca = forge.pki.certificateFromPem(caCert);
  const cert = certificate(publicKey, hosts[0] ?? 'kerf-gitops-helper', now, SERVING_LIFETIME_MS);
  cert.setIssuer(ca.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    // type 2 is a dNSName, 7 an iPAddress (RFC 5280 GeneralName).
    { name: 'subjectAltName', altNames: hosts.map((host) => (isIP(host) ? { type: 7, ip: host } : { type: 2, value: host })) },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(caKey), forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: privateKey };
}

/** The PEM certificates of a bundle, in order. */
export function splitPem(bundle: string): string[] {
  return bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g)?.map((pem) => (pem.endsWith('\n') ? pem : `${pem}\n`)) ?? [];
}

const validTo = (cert: X509Certificate) => new Date(cert.validTo).getTime();

/**
 * What `material` needs at `now` for `hosts`: nothing; a new serving certificate from the same CA
 * (near its end, or no longer for these hosts); or a new CA, when the CA nears its end or anything
 * does not hold together (unreadable, a key that is not the certificate's, a certificate the CA did not sign).
 */
export function renewalDue(material: ServingMaterial, hosts: readonly string[], now: Date): Renewal {
  try {
    const [caPem] = splitPem(material.caBundle);
    const ca = new X509Certificate(caPem ?? '');
    const serving = new X509Certificate(material.tlsCert);
    if (!ca.ca || !ca.checkPrivateKey(createPrivateKey(material.caKey))) return 'ca';
    if (validTo(ca) - now.getTime() <= CA_RENEW_BEFORE_MS) return 'ca';
    if (!serving.checkPrivateKey(createPrivateKey(material.tlsKey)) || !serving.verify(ca.publicKey)) return 'serving';
    if (validTo(serving) - now.getTime() <= SERVING_RENEW_BEFORE_MS) return 'serving';
    const covers = hosts.every((host) => (isIP(host) ? serving.checkIP(host) : serving.checkHost(host, { wildcards: false })) !== undefined);
    return covers ? 'none' : 'serving';
  } catch {
    return 'ca';
  }
}

/**
 * The material after renewal (or fresh, with no current one). A new CA keeps the old one in the bundle
 * until it expires: replicas still serving the old certificate stay trusted until they load the new one.
 */
export function renew(current: ServingMaterial | undefined, renewal: Renewal, hosts: readonly string[], now: Date): ServingMaterial {
  if (current && renewal === 'none') return current;
  if (current && renewal === 'serving') {
    const [caPem = ''] = splitPem(current.caBundle);
    const serving = issueServing(caPem, current.caKey, hosts, now);
    return { ...current, tlsCert: serving.cert, tlsKey: serving.key };
  }
  const ca = issueCa(now);
  const serving = issueServing(ca.cert, ca.key, hosts, now);
  const stillValid = splitPem(current?.caBundle ?? '').filter((pem) => {
    try {
      return validTo(new X509Certificate(pem)) > now.getTime();
    } catch {
      return false;
    }
  });
  return { caBundle: [ca.cert, ...stillValid.slice(0, 1)].join(''), caKey: ca.key, tlsCert: serving.cert, tlsKey: serving.key };
}

/** The Secret's `data` (base64) for `material`, and back; undefined when a key is missing. */
export function toSecretData(material: ServingMaterial): Record<string, string> {
  return Object.fromEntries(Object.entries(SECRET_KEYS).map(([field, key]) => [key, Buffer.from(material[field as keyof ServingMaterial]).toString('base64')]));
}

export function fromSecretData(data: Record<string, string> | undefined): ServingMaterial | undefined {
  const value = (key: string) => (data?.[key] ? Buffer.from(data[key], 'base64').toString('utf8') : undefined);
  const [caBundle, caKey, tlsCert, tlsKey] = [value(SECRET_KEYS.caBundle), value(SECRET_KEYS.caKey), value(SECRET_KEYS.tlsCert), value(SECRET_KEYS.tlsKey)];
  return caBundle && caKey && tlsCert && tlsKey ? { caBundle, caKey, tlsCert, tlsKey } : undefined;
}
