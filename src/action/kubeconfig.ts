// The `kubeconfig` input (a secret's contents), masked in the log before anything can print it.
// The run loads it from the text itself (clusterFromKubeconfig): no file, no KUBECONFIG.
import { yamlData } from '../manifests/yaml-text.js';

/** Fields of a kubeconfig user that carry credentials (token, password, key and certificate data, OIDC tokens, client secret). */
const SECRET_KEY = /token|secret|password|key|certificate|credential/i;

/** Shorter values would mask common words all over the log (and redact skips them too). */
const MIN_SECRET = 4;

function collect(value: unknown, secret: boolean, out: Set<string>): void {
  if (typeof value === 'string') {
    if (secret) out.add(value.trim());
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) collect(item, secret, out);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const entries = value as Record<string, unknown>;
  // exec plugins' environment: `{name, value}` pairs whose value may be a credential.
  if (typeof entries.name === 'string' && 'value' in entries) collect(entries.value, secret || SECRET_KEY.test(entries.name), out);
  for (const [key, child] of Object.entries(entries)) {
    if (key === 'value' && typeof entries.name === 'string') continue;
    collect(child, secret || SECRET_KEY.test(key), out);
  }
}

/**
 * What to mask: the whole value, every credential field in it, and a proxy URL's user info. A
 * value that does not parse as YAML is masked line by line, since a parser's error message
 * quotes the lines around the fault.
 */
export function kubeconfigSecrets(content: string): string[] {
  const secrets = new Set<string>([content]);
  let config: unknown;
  try {
    config = yamlData(content);
  } catch {
    config = undefined;
  }
  if (config === null || typeof config !== 'object') {
    for (const line of content.split(/\r?\n/)) secrets.add(line.trim());
  } else {
    const { users, clusters } = config as Record<string, unknown>;
    collect(users, false, secrets);
    for (const url of JSON.stringify(clusters ?? []).matchAll(/[a-z][\w+.-]*:\/\/([^/@\s"]+)@/gi)) secrets.add(url[1] as string);
  }
  return [...secrets].filter((secret) => secret.length >= MIN_SECRET);
}
