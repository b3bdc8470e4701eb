// `kerf-gitops helper` as its own process, as the Deployment runs it (the bundle, with the
// Deployment's NODE_OPTIONS), so its memory is its own: started against a stand-in's kubeconfig,
// stopped with SIGTERM. It runs under
// coreutils `timeout`, which passes the SIGTERM on and kills it after its lifetime even when the
// benchmark process is gone.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from './paths.js';

/** The NODE_OPTIONS of the helper container in templates/install/deployment.yaml. */
export function deploymentNodeOptions(): string {
  const documents = parseAllDocuments(readFileSync(join(repoRoot(), 'templates/install/deployment.yaml'), 'utf8')).map((document) => document.toJS() as { kind?: string; spec?: { template: { spec: { containers: { env?: { name: string; value?: string }[] }[] } } } });
  const env = documents.find((document) => document.kind === 'Deployment')?.spec?.template.spec.containers[0]?.env ?? [];
  return env.find((variable) => variable.name === 'NODE_OPTIONS')?.value ?? '';
}

export interface HelperProcess {
  pid: number;
  webhookPort?: number;
  healthPort: number;
  /** VmRSS (now) and VmHWM (peak since start) of the helper process, in MiB. */
  memory(): { rssMiB: number; peakMiB: number };
  /** The last log lines (JSON), for error messages. */
  logs(): string[];
  stop(): Promise<void>;
}

export interface HelperProcessOptions {
  kubeconfig: string;
  /** Node options for the helper process (before the script), e.g. a heap limit. */
  nodeArgs?: string[];
  /** Extra arguments after `helper` (default `--no-webhook`). */
  args?: string[];
  /** Until the helper says it started (caches listed); default 60 s. */
  startTimeoutMs?: number;
  /** Killed after this long whatever happens; default 4 min. */
  lifetimeSeconds?: number;
}

/** The helper's own pid: the one child of `timeout`. */
async function helperPid(timeoutPid: number): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const children = readFileSync(`/proc/${timeoutPid}/task/${timeoutPid}/children`, 'utf8').trim();
    if (children) return Number(children.split(' ')[0]);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('benchmark: timeout started no helper process');
}

function statusKiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match?.[1]) throw new Error(`benchmark: no ${field} for process ${pid}`);
  return Number(match[1]);
}

export async function startHelperProcess(options: HelperProcessOptions): Promise<HelperProcess> {
  const cli = join(repoRoot(), 'lib', 'kerf-gitops.mjs');
  const lifetime = String(options.lifetimeSeconds ?? 240);
  const command = [process.execPath, ...(options.nodeArgs ?? []), cli, 'helper', ...(options.args ?? ['--no-webhook']), '--health-port', '0'];
  const child = spawn('timeout', ['--kill-after=10', lifetime, ...command], {
    env: { ...process.env, NODE_OPTIONS: deploymentNodeOptions(), KUBECONFIG: options.kubeconfig, POD_NAME: 'bench-helper', POD_NAMESPACE: 'kerf-system' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error('benchmark: the helper process did not start');
  const lines: string[] = [];
  const keep = (line: string) => {
    lines.push(line);
    if (lines.length > 50) lines.shift();
  };
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let alive = true;
  void exited.then(() => (alive = false));
  let pid: number | undefined;
  // A SIGKILL is not passed on by `timeout`: send it to the helper too.
  const killNow = () => {
    if (!alive) return;
    if (pid !== undefined) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    child.kill('SIGKILL');
  };
  process.once('exit', killNow);

  const started = new Promise<{ webhookPort?: number; healthPort: number }>((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      let newline = buffered.indexOf('\n');
      while (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        keep(line);
        try {
          const entry = JSON.parse(line) as { msg?: string; webhookPort?: number; healthPort?: number };
          if (entry.msg === 'helper started' && entry.healthPort !== undefined) {
            resolve({ healthPort: entry.healthPort, ...(entry.webhookPort !== undefined && { webhookPort: entry.webhookPort }) });
          }
        } catch {
          // not a log line
        }
        newline = buffered.indexOf('\n');
      }
    });
    void exited.then((code) => reject(new Error(`benchmark: the helper exited (${code}) before it started: ${stderr.trim() || lines.slice(-3).join(' | ')}`)));
    setTimeout(() => reject(new Error(`benchmark: the helper did not start within ${options.startTimeoutMs ?? 60_000} ms`)), options.startTimeoutMs ?? 60_000).unref();
  });
  started.catch(() => undefined);

  const stop = async () => {
    process.off('exit', killNow);
    if (!alive) return;
    child.kill('SIGTERM');
    const timer = setTimeout(killNow, 10_000);
    await exited;
    clearTimeout(timer);
  };

  try {
    const helper = await helperPid(child.pid);
    pid = helper;
    const ports = await started;
    return {
      pid: helper,
      ...ports,
      memory: () => ({ rssMiB: statusKiB(helper, 'VmRSS') / 1024, peakMiB: statusKiB(helper, 'VmHWM') / 1024 }),
      logs: () => [...lines],
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Runs `task` against the helper and stops it after; a failure carries the helper's last log lines. */
export async function withHelper<T>(helper: HelperProcess, task: () => Promise<T>): Promise<T> {
  try {
    return await task();
  } catch (error) {
    throw new Error(`${(error as Error).message}; helper log: ${helper.logs().slice(-3).join(' | ')}`, { cause: error });
  } finally {
    await helper.stop();
  }
}
