// `kerf-gitops helper`: the in-cluster helper's command, apart from the CLI's other commands so the
// helper's process loads none of them (plans, git, GitHub): src/cli.ts imports this alone for it.
import { isIP } from 'node:net';
import { parseArgs } from 'node:util';
import { connectionFromEnvironment } from '../cluster/kube-connection.js';
import { kubeClient } from '../cluster/kube-client.js';
import { yamlData } from '../manifests/yaml-text.js';
import { inputStopsTheRun, UsageError } from './usage-error.js';

const HELPER_USAGE = `usage: kerf-gitops helper [options]

  --config FILE          the helper config (.kerf/config.yaml format), re-read when it changes
  --webhook-port N       serve the pod webhook on this port (HTTPS)
  --tls-cert FILE        the webhook's serving certificate and key (files, e.g. from cert-manager)
  --tls-key FILE
  --self-signed-cert     instead, make a CA and serving certificate, keep them in a Secret, write the CA
                         into the webhook configuration's caBundle and renew both before they expire
  --cert-secret NAME     that Secret, in the helper's namespace (default kerf-gitops-webhook-tls)
  --webhook-configuration NAME   the MutatingWebhookConfiguration (default kerf-gitops)
  --webhook-service NAME the Service the certificate is for (default kerf-gitops-helper)
  --no-webhook           run the controller loop only (local runs)
  --health-port N        /healthz and /readyz
  --bind-address IP      the address the webhook and health listeners bind (default 0.0.0.0)
`;

function port(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0 || number > 65535) throw new UsageError(`${flag} must be a port number, got ${JSON.stringify(value)}`);
  return number;
}

/** The in-cluster helper: runs until SIGTERM or SIGINT, then hands its Lease back. */
async function helperCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      help: { type: 'boolean', short: 'h', default: false },
      config: { type: 'string' },
      'webhook-port': { type: 'string' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      'no-webhook': { type: 'boolean', default: false },
      'self-signed-cert': { type: 'boolean', default: false },
      'cert-secret': { type: 'string', default: 'kerf-gitops-webhook-tls' },
      'webhook-configuration': { type: 'string', default: 'kerf-gitops' },
      'webhook-service': { type: 'string', default: 'kerf-gitops-helper' },
      'health-port': { type: 'string' },
      'bind-address': { type: 'string' },
    },
    allowPositionals: false,
    strict: true,
  });
  if (values.help) {
    process.stdout.write(HELPER_USAGE);
    return 0;
  }
  const { runHelper, HelperConfigError, HelperOptionsError } = await import('../helper/main.js');
  const { jsonLineLogger } = await import('../util/logger.js');
  let client;
  try {
    client = kubeClient(connectionFromEnvironment(process.env, yamlData));
  } catch (error) {
    // No cluster configured, or a kubeconfig that does not parse or name one: input that stops the run.
    throw new UsageError((error as Error).message);
  }
  const webhookPort = port(values['webhook-port'], '--webhook-port');
  const healthPort = port(values['health-port'], '--health-port');
  const bindAddress = values['bind-address'];
  if (bindAddress !== undefined && isIP(bindAddress) === 0) throw new UsageError(`--bind-address must be an IP address (e.g. 0.0.0.0, 127.0.0.1, ::), got ${JSON.stringify(bindAddress)}`);
  try {
    const helper = await runHelper({
      ...(values.config !== undefined && { config: values.config }),
      ...(webhookPort !== undefined && { webhookPort }),
      ...(values['tls-cert'] !== undefined && { tlsCert: values['tls-cert'] }),
      ...(values['tls-key'] !== undefined && { tlsKey: values['tls-key'] }),
      noWebhook: values['no-webhook'],
      ...(values['self-signed-cert'] && {
        selfSignedCertificate: { secretName: values['cert-secret'], webhookConfiguration: values['webhook-configuration'], service: values['webhook-service'] },
      }),
      ...(healthPort !== undefined && { healthPort }),
      ...(bindAddress !== undefined && { host: bindAddress }),
      client,
      logger: jsonLineLogger(process.stdout, { now: () => new Date() }),
    });
    await new Promise<void>((resolveStop) => {
      process.once('SIGTERM', resolveStop);
      process.once('SIGINT', resolveStop);
    });
    await helper.stop();
    return 0;
  } catch (error) {
    if (error instanceof HelperConfigError || error instanceof HelperOptionsError) throw new UsageError((error as Error).message);
    throw error;
  }
}

/** The helper as its own process: input problems are one line and exit 2, as for every command. */
export async function helperMain(args: string[]): Promise<number> {
  try {
    return await helperCommand(args);
  } catch (error) {
    return inputStopsTheRun(error);
  }
}
