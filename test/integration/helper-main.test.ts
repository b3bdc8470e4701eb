import { get } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { utimesSync, writeFileSync } from 'node:fs';
import { configSource, HelperConfigError, HelperOptionsError, runHelper } from '../../src/helper/main.js';
import { collectingLogger, startHarness } from '../helper/cluster-harness.js';
import type { Harness, LogLine } from '../helper/cluster-harness.js';
import { standinClient } from '../support/kube-client.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => h.close());

function status(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject);
  });
}

describe('runHelper', () => {
  it('serves /healthz and /readyz once the caches are listed, and stops cleanly', async () => {
    const helper = await h.helper({ healthPort: 0 });
    const port = helper.healthPort as number;
    expect(await status(port, '/healthz')).toBe(200);
    expect(await status(port, '/readyz')).toBe(200);
    expect(await status(port, '/other')).toBe(404);
    await helper.stop();
    await expect(status(port, '/healthz')).rejects.toThrow();
  });

  it.each([
    ['the webhook without TLS files', { webhookPort: 0 }, HelperOptionsError],
    ['TLS files that do not exist', { webhookPort: 0, tlsCert: '/nonexistent/tls.crt', tlsKey: '/nonexistent/tls.key' }, HelperOptionsError],
    ['a config file that does not exist', { noWebhook: true, config: '/nonexistent/config.yaml' }, HelperConfigError],
  ])('refuses %s', async (_name, options, error) => {
    await expect(runHelper({ client: standinClient(h.api), logger: collectingLogger([]), ...options })).rejects.toBeInstanceOf(error);
  });

  it.each([
    ['an unknown key', { pauze: true }],
    ['a pause that is not a boolean', { pause: 'maybe' }],
  ])('refuses a config file with %s, naming it', async (_name, config) => {
    const file = h.writeConfig(config);
    const started = runHelper({ client: standinClient(h.api), logger: collectingLogger([]), noWebhook: true, config: file });
    await expect(started).rejects.toBeInstanceOf(HelperConfigError);
    await expect(started).rejects.toThrow(file);
  });

  it('Z4: a reload that fails validation freezes the helper until a valid config arrives (not the last good one)', () => {
    const file = h.writeConfig({ pause: false });
    const log: LogLine[] = [];
    const config = configSource(file, collectingLogger(log));
    expect(config().freeze.now).toBe(false);
    const rewrite = (text: string, at: number) => {
      writeFileSync(file, text);
      utimesSync(file, at, at);
    };
    rewrite('freeze: {now: maybe}\n', 1_000_000);
    expect(config().freeze.now).toBe(true);
    expect(log).toMatchObject([{ level: 'error', message: 'config invalid: frozen until a valid config arrives' }]);
    rewrite('freeze: {now: [true\n', 1_000_100);
    expect(config().freeze.now).toBe(true);
    rewrite('freeze: {now: false}\n', 1_000_200);
    expect(config().freeze.now).toBe(false);
    rewrite('freeze: {now: yes}\n', 1_000_300);
    expect(config().freeze.now).toBe(true);
  });
});
