// Runs the bundled Action as the Actions runner does: the action's files without node_modules
// (the runner fetches the repo, not its dependencies), `node dist/index.js` in the workspace,
// INPUT_* variables from action.yml's defaults and the step's `with:`, and the GITHUB_OUTPUT and
// GITHUB_STEP_SUMMARY files. Returns what the runner would read back.
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { FileChanges } from '../standins/git/bare-repo.js';

const ROOT = join(import.meta.dirname, '../..');

/**
 * The example's windows recur weekly and its freezes follow the calendar, so its plan depends on
 * the day, and the Action judges windows at run time. These policies give the same plan on any
 * day: the payments freeze is always open, the batch window opens far in the future.
 */
export const CLOCK_FREE_POLICIES: FileChanges = {
  'policies/shop.yaml': `apiVersion: kerf.getkerf.dev/v1alpha1
kind: RightsizingPolicy
metadata: {name: default, namespace: shop}
spec:
  mode: auto-patch
  apply: {strategy: in-place}
---
apiVersion: kerf.getkerf.dev/v1alpha1
kind: RightsizingPolicy
metadata: {name: batch, namespace: shop}
spec:
  mode: auto-patch
  selector: {matchLabels: {tier: batch}}
  apply:
    strategy: deferred
    maintenanceWindows:
      - {start: "2999-01-01T01:00:00Z", end: "2999-01-01T05:00:00Z"}
`,
  'policies/payments.yaml': `apiVersion: kerf.getkerf.dev/v1alpha1
kind: RightsizingPolicy
metadata: {name: default, namespace: payments}
spec:
  mode: auto-patch
  apply:
    strategy: rollout
    freezeWindows:
      - {start: "2000-01-01T00:00:00Z", end: "2999-01-01T00:00:00Z"}
---
apiVersion: kerf.getkerf.dev/v1alpha1
kind: RightsizingPolicy
metadata: {name: default, namespace: legacy}
spec:
  mode: recommend
`,
};

export interface Annotation {
  level: 'error' | 'warning' | 'notice';
  properties: Record<string, string>;
  message: string;
}

export interface ActionRun {
  code: number;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
  annotations: Annotation[];
}

export interface InstalledAction {
  run(options: { cwd: string; with?: Record<string, string>; env?: Record<string, string> }): Promise<ActionRun>;
  close(): Promise<void>;
}

/** The runner's `KEY<<DELIMITER` blocks of GITHUB_OUTPUT. */
export function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  for (const match of text.matchAll(/^([^\n<]+)<<(\S+)\n([\s\S]*?)\n\2$/gm)) outputs[match[1] as string] = match[3] as string;
  return outputs;
}

/** Workflow commands escape these in values (message) and, with `,` and `:`, in properties. */
function unescape(text: string): string {
  return text.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%3A/g, ':').replace(/%2C/g, ',').replace(/%25/g, '%');
}

export function parseAnnotations(stdout: string): Annotation[] {
  return [...stdout.matchAll(/^::(error|warning|notice)(?: ([^:]*))?::(.*)$/gm)].map((match) => ({
    level: match[1] as Annotation['level'],
    properties: Object.fromEntries(
      (match[2] ?? '')
        .split(',')
        .filter(Boolean)
        .map((pair) => [pair.slice(0, pair.indexOf('=')), unescape(pair.slice(pair.indexOf('=') + 1))]),
    ),
    message: unescape(match[3] ?? ''),
  }));
}

/** INPUT_<NAME> for every input with a default, as the runner sets them when `with:` leaves them out. */
async function defaultInputs(token: string): Promise<Record<string, string>> {
  const action = parse(await readFile(join(ROOT, 'action.yml'), 'utf8')) as { inputs: Record<string, { default?: string }> };
  const env: Record<string, string> = {};
  for (const [name, input] of Object.entries(action.inputs)) {
    if (input.default === undefined) continue;
    env[`INPUT_${name.toUpperCase()}`] = input.default === '${{ github.token }}' ? token : input.default;
  }
  return env;
}

/** Copies the committed Action (dist/, the PR template, the schemas it validates with) to a folder of its own. */
export async function installAction(token: string): Promise<InstalledAction> {
  // First, so an action.yml the runner could not load fails the tests without leaving a folder behind.
  const defaults = await defaultInputs(token);
  const dir = await mkdtemp(join(tmpdir(), 'kerf-action-'));
  await cp(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
  await mkdir(join(dir, 'templates'));
  for (const part of ['pr', 'crds', 'kerf-config.schema.json']) await cp(join(ROOT, 'templates', part), join(dir, 'templates', part), { recursive: true });
  await cp(join(ROOT, 'action.yml'), join(dir, 'action.yml'));
  let runs = 0;

  return {
    async run({ cwd, with: inputs = {}, env = {} }) {
      const files = join(dir, `run-${++runs}`);
      await mkdir(files);
      const output = join(files, 'output');
      const summary = join(files, 'summary.md');
      await writeFile(output, '');
      await writeFile(summary, '');
      const withInputs = Object.fromEntries(Object.entries(inputs).map(([name, value]) => [`INPUT_${name.toUpperCase()}`, value]));
      const processEnv = {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        // A fresh runner: no git identity or credentials of this machine.
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_TERMINAL_PROMPT: '0',
        GITHUB_WORKSPACE: cwd,
        GITHUB_OUTPUT: output,
        GITHUB_STEP_SUMMARY: summary,
        RUNNER_TEMP: files,
        ...defaults,
        ...withInputs,
        ...env,
      };
      const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile('node', [join(dir, 'dist/index.js')], { cwd, env: processEnv, maxBuffer: 64 * 1024 * 1024 }, (error, out, err) => {
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout: out, stderr: err });
        });
      });
      return {
        code,
        stdout,
        stderr,
        outputs: parseOutputs(await readFile(output, 'utf8')),
        summary: await readFile(summary, 'utf8'),
        annotations: parseAnnotations(stdout),
      };
    },
    close: () => rm(dir, { recursive: true, force: true }),
  };
}
