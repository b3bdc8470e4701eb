// One row per problem code: the input snippet, the problem (code, line, field) and what the plan then
// does with the object. The consequence is the point: invalid input never acts.
import { describe, expect, it } from 'vitest';
import { runPlan } from '../../src/plan/run-plan.js';
import { InputError } from '../../src/util/input-error.js';
import { tempRepos } from '../support/temp-repo.js';

const NOW = new Date('2026-12-02T10:00:00Z');
const repoWith = tempRepos('kerf-problems-');

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata: {name: cart, namespace: shop, labels: {app: cart}}
spec:
  replicas: 3
  template:
    metadata: {labels: {app: cart}}
    spec:
      containers:
        - name: app
          image: ghcr.io/example/cart:1
          resources: {requests: {cpu: 500m, memory: 512Mi}, limits: {cpu: "1", memory: 1Gi}}
`;

// Line numbers in the rows below count from 1 in these texts.
export const POLICY = `apiVersion: kerf.getkerf.dev/v1alpha1
kind: RightsizingPolicy
metadata:
  name: shop
  namespace: shop
spec:
  mode: auto-patch
  selector:
    matchLabels: {app: cart}
  apply:
    strategy: rollout
    fallbackAfter: 10m
`;

export const RECOMMENDATION = `apiVersion: kerf.getkerf.dev/v1alpha1
kind: RightsizingRecommendation
metadata:
  name: cart
  namespace: shop
spec:
  targetRef:
    kind: Deployment
    name: cart
  containers:
    - name: app
      requests:
        cpu: 250m
      limits:
        cpu: 500m
`;

export async function planOf(files: Record<string, string | Buffer>) {
  const repo = await repoWith({ 'apps/cart.yaml': DEPLOYMENT, 'policies/shop.yaml': POLICY, 'recs/cart.yaml': RECOMMENDATION, ...files });
  const { plan } = await runPlan({ repo, recommendations: [], now: NOW, fleetPaused: false, cwd: process.cwd() });
  return plan;
}

const PROPOSED = { action: 'pull-request', phase: 'Proposed' };
const HELD = { action: 'blocked', phase: 'Blocked', reason: 'InvalidPolicy' };

it('the valid inputs are proposed, with no error (the baseline every row mutates)', async () => {
  const plan = await planOf({});
  expect(plan.errors).toEqual([]);
  expect(plan.decisions).toMatchObject([{ target: { name: 'cart' }, ...PROPOSED, changes: [{ field: 'requests.cpu', to: '250m' }, { field: 'limits.cpu', to: '500m' }] }]);
});

describe('a policy with an error holds its workloads (InvalidPolicy), never a default', () => {
  it.each([
    { name: 'mode misspelt', file: POLICY.replace('mode: auto-patch', 'mode: recomend'), code: 'InvalidEnum', line: 7, field: 'spec.mode', says: 'did you mean "recommend"?' },
    { name: 'strategy misspelt', file: POLICY.replace('strategy: rollout', 'strategy: defered'), code: 'InvalidEnum', line: 11, field: 'spec.apply.strategy', says: 'did you mean "deferred"?' },
    { name: 'an unknown key (selector misspelt)', file: POLICY.replace('  selector:', '  selectr:'), code: 'UnknownField', line: 8, field: 'spec.selectr', says: 'did you mean "selector"?' },
    { name: 'mode missing (the CRD requires it)', file: POLICY.replace('  mode: auto-patch\n', ''), code: 'MissingField', line: 6, field: 'spec.mode', says: 'is required' },
    { name: 'a day in a Go duration', file: POLICY.replace('fallbackAfter: 10m', 'fallbackAfter: 3d'), code: 'InvalidDuration', line: 12, field: 'spec.apply.fallbackAfter', says: 'Go duration' },
    { name: 'a name that is no Kubernetes name', file: POLICY.replace('name: shop\n', 'name: "<b>shop</b>"\n'), code: 'InvalidName', line: 4, field: 'metadata.name', says: 'not a valid Kubernetes name' },
    { name: 'a misspelt kind in kerf’s group', file: POLICY.replace('kind: RightsizingPolicy', 'kind: RightsizingPolcy'), code: 'UnknownKind', line: 1, field: 'kind', says: 'did you mean "RightsizingPolicy"?' },
    { name: 'a misspelt apiVersion', file: POLICY.replace('kerf.getkerf.dev/v1alpha1', 'kerf.getkerf.dev/v1alpah1'), code: 'UnknownApiVersion', line: 1, field: 'apiVersion', says: 'did you mean "kerf.getkerf.dev/v1alpha1"?' },
    { name: 'a file that does not parse', file: POLICY.replace('matchLabels: {app: cart}', 'matchLabels: {app: cart'), code: 'YamlSyntax', line: 10, field: undefined, says: 'policies/shop.yaml' },
    { name: 'a duplicate key', file: `${POLICY}  mode: recommend\n`, code: 'DuplicateKey', line: 13, field: undefined, says: 'unique' },
  ])('$name → $code at line $line, and the workload is held', async ({ file, code, line, field, says }) => {
    const plan = await planOf({ 'policies/shop.yaml': file });
    expect(plan.errors).toHaveLength(1);
    expect(plan.errors[0]).toMatchObject({ code, file: 'policies/shop.yaml', line, ...(field && { field }) });
    expect(plan.errors[0]?.message).toContain(says);
    expect(plan.decisions).toMatchObject([{ target: { name: 'cart' }, ...HELD }]);
    expect(plan.decisions[0]?.message).toContain('policies/shop.yaml');
  });

  it('an invalid policy wins over a valid one that also covers the workload: its selector cannot be trusted', async () => {
    const plan = await planOf({ 'policies/other.yaml': POLICY.replace('name: shop\n', 'name: other\n').replace('matchLabels: {app: cart}', 'matchLabels: {}').replace('strategy: rollout', 'strategy: defered') });
    expect(plan.errors.map((e) => e.code)).toEqual(['InvalidEnum']);
    expect(plan.decisions).toMatchObject([HELD]);
  });

  it.each([
    ['a mapping', 'freezeWindows: {start: "2026-12-01T00:00:00Z", end: "2026-12-31T00:00:00Z"}'],
    ['a string', 'freezeWindows: always'],
  ])('Z3: freezeWindows given as %s counts as an open freeze (fail closed), not dropped', async (_, line) => {
    const plan = await planOf({ 'policies/shop.yaml': `${POLICY}    ${line}\n` });
    expect(plan.errors[0]).toMatchObject({ code: 'WrongType', file: 'policies/shop.yaml', line: 13, field: 'spec.apply.freezeWindows' });
    expect(plan.decisions).toMatchObject([{ action: 'blocked', phase: 'Blocked', reason: 'FreezeWindow' }]);
  });
});

describe('an invalid recommendation is refused whole, with its own file and line', () => {
  it.each([
    { name: 'a negative request', file: RECOMMENDATION.replace('cpu: 250m', 'cpu: "-250m"'), code: 'InvalidQuantity', line: 13, field: 'spec.containers[0].requests.cpu' },
    { name: 'a negative integer', file: RECOMMENDATION.replace('cpu: 250m', 'cpu: -1'), code: 'InvalidQuantity', line: 13, field: 'spec.containers[0].requests.cpu' },
    { name: 'a malformed quantity', file: RECOMMENDATION.replace('cpu: 250m', 'cpu: 250 m'), code: 'InvalidQuantity', line: 13, field: 'spec.containers[0].requests.cpu' },
    { name: 'a number too large to hold', file: RECOMMENDATION.replace('cpu: 500m', 'cpu: 1e1000'), code: 'InvalidQuantity', line: 15, field: 'spec.containers[0].limits.cpu' },
    { name: 'request misspelt', file: RECOMMENDATION.replace('requests:', 'request:'), code: 'UnknownField', line: 12, field: 'spec.containers[0].request' },
    { name: 'limits misspelt', file: RECOMMENDATION.replace('limits:', 'limts:'), code: 'UnknownField', line: 14, field: 'spec.containers[0].limts' },
    { name: 'limits in the singular', file: RECOMMENDATION.replace('limits:', 'limit:'), code: 'UnknownField', line: 14, field: 'spec.containers[0].limit' },
    { name: 'containers misspelt', file: RECOMMENDATION.replace('containers:', 'containerz:'), code: 'UnknownField', line: 10, field: 'spec.containerz' },
    { name: 'a request above its limit', file: RECOMMENDATION.replace('cpu: 500m', 'cpu: 200m'), code: 'RequestAboveLimit', line: 13, field: 'spec.containers[0].requests.cpu' },
    { name: 'a target kind of no workload', file: RECOMMENDATION.replace('kind: Deployment', 'kind: Deploymnet'), code: 'InvalidEnum', line: 8, field: 'spec.targetRef.kind' },
  ])('$name → $code at line $line; nothing is planned for the target', async ({ file, code, line, field }) => {
    const plan = await planOf({ 'recs/cart.yaml': file });
    expect(plan.errors).toContainEqual(expect.objectContaining({ code, file: 'recs/cart.yaml', line, field }));
    // One problem per fault, though the schema and the meaning checks may both see it.
    expect(plan.errors.filter((e) => e.code === code && e.field === field)).toHaveLength(1);
    expect(plan.decisions).toEqual([]);
  });

  it('a misspelt kind of kerf’s between Services is still read (the scan screens documents by kind) and reported', async () => {
    const service = 'apiVersion: v1\nkind: Service\nmetadata: {name: cart, namespace: shop}\n';
    const plan = await planOf({ 'recs/cart.yaml': `${service}---\n${RECOMMENDATION.replace('kind: RightsizingRecommendation', 'kind: RightsizingRecomendation')}---\n${service}` });
    expect(plan.errors).toMatchObject([{ code: 'UnknownKind', file: 'recs/cart.yaml', line: 4 }]);
    expect(plan.decisions).toEqual([]);
  });

  it('a misspelt kind in kerf’s group is reported (UnknownKind), not silently skipped', async () => {
    const plan = await planOf({ 'recs/cart.yaml': RECOMMENDATION.replace('kind: RightsizingRecommendation', 'kind: RightsizingRecomendation') });
    expect(plan.errors).toMatchObject([{ code: 'UnknownKind', file: 'recs/cart.yaml', line: 1 }]);
    expect(plan.errors[0]?.message).toContain('did you mean "RightsizingRecommendation"?');
    expect(plan.decisions).toEqual([]);
  });
});

describe('hostile files are contained: one error for the file, the run goes on', () => {
  const aliasBomb = (kind: string): string => {
    const bomb = ['apiVersion: v1', `kind: ${kind}`, 'metadata: {name: bomb}', 'data:', '  a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (const [i, name] of ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'].entries()) bomb.push(`  ${name}: &${name} [${Array(9).fill(`*${String.fromCharCode(97 + i)}`).join(',')}]`);
    return `# kind: Deployment\n${bomb.join('\n')}\n`;
  };

  it('an alias bomb is one AliasLimit error and the healthy workload is still proposed', async () => {
    const plan = await planOf({ 'apps/bomb.yaml': aliasBomb('Deployment') });
    expect(plan.errors).toMatchObject([{ code: 'AliasLimit', file: 'apps/bomb.yaml' }]);
    expect(plan.decisions).toMatchObject([PROPOSED]);
  });

  it('an alias bomb in a document screened out by its kind (a ConfigMap: no workload, no kerf object) is never parsed: no error, the run goes on', async () => {
    const plan = await planOf({ 'apps/bomb.yaml': aliasBomb('ConfigMap') });
    expect(plan.errors).toEqual([]);
    expect(plan.decisions).toMatchObject([PROPOSED]);
  });

  it('Latin-1 bytes are NotUtf8 naming file and line, not replaced by U+FFFD', async () => {
    const latin1 = Buffer.concat([Buffer.from('apiVersion: v1\nkind: Deployment\nmetadata: {name: caf'), Buffer.from([0xe9]), Buffer.from('}\n')]);
    const plan = await planOf({ 'apps/latin1.yaml': latin1 });
    expect(plan.errors).toMatchObject([{ code: 'NotUtf8', file: 'apps/latin1.yaml', line: 3 }]);
    expect(plan.decisions).toMatchObject([PROPOSED]);
  });

  it('a kustomization cycle with no root is KustomizationCycle naming each file, not silence', async () => {
    const plan = await planOf({
      'loop/a/kustomization.yaml': 'resources: [../b, deployment.yaml]\n',
      'loop/a/deployment.yaml': DEPLOYMENT.replace(/cart/g, 'looped'),
      'loop/b/kustomization.yaml': 'resources: [../a]\n',
    });
    expect(plan.errors.filter((e) => e.code === 'KustomizationCycle').map((e) => e.file).sort()).toEqual(['loop/a/kustomization.yaml', 'loop/b/kustomization.yaml']);
    expect(plan.decisions).toMatchObject([PROPOSED]);
  });

  it('a workload file that does not parse: its recommendation is refused naming the parse error (UnparsableObject)', async () => {
    const plan = await planOf({ 'apps/cart.yaml': DEPLOYMENT.replace('labels: {app: cart}}', 'labels: {app: cart}') });
    expect(plan.errors.map((e) => e.code)).toEqual(['YamlSyntax', 'UnparsableObject']);
    expect(plan.errors[1]).toMatchObject({ file: 'recs/cart.yaml', field: 'spec.targetRef', message: expect.stringContaining('is in apps/cart.yaml, which does not parse') });
    expect(plan.decisions).toEqual([]);
  });

  it('a broken workload file a kustomize root renders is held in the namespace the root gives it (UnparsableObject)', async () => {
    const plan = await planOf({
      'apps/cart.yaml': DEPLOYMENT.replace('namespace: shop, ', '').replace('labels: {app: cart}}', 'labels: {app: cart}'),
      'apps/kustomization.yaml': 'namespace: shop\nresources: [cart.yaml]\n',
    });
    expect(plan.errors.map((e) => e.code)).toEqual(['YamlSyntax', 'UnparsableObject']);
    expect(plan.errors[1]?.message).toContain('target shop/Deployment/cart is in apps/cart.yaml, which does not parse');
    expect(plan.decisions).toEqual([]);
  });

  it('a workload whose name is no Kubernetes name is not read (InvalidName)', async () => {
    const plan = await planOf({ 'apps/cart.yaml': DEPLOYMENT.replace('name: cart,', 'name: "`cart`",') });
    expect(plan.errors.map((e) => e.code)).toEqual(['InvalidName', 'TargetNotFound']);
    expect(plan.decisions).toEqual([]);
  });
});

describe('the config: freeze and pause fail closed', () => {
  const config = (text: string) => ({ '.kerf/config.yaml': text });
  it.each([
    { text: 'pause: yes', code: 'Yaml11Boolean', reason: 'Paused', warning: true },
    { text: 'pause: "true"', code: 'WrongType', reason: 'Paused' },
    { text: 'pause: 1', code: 'WrongType', reason: 'Paused' },
    { text: 'freeze: {now: yes}', code: 'Yaml11Boolean', reason: 'FreezeWindow', warning: true },
    { text: 'freeze: {now: on}', code: 'Yaml11Boolean', reason: 'FreezeWindow', warning: true },
    { text: 'freeze: true', code: 'WrongType', reason: 'FreezeWindow' },
    { text: 'freeze: {windows: {start: "2026-12-01T00:00:00Z"}}', code: 'WrongType', reason: 'FreezeWindow' },
    { text: 'freeze: {nwo: true}', code: 'UnknownField', reason: 'FreezeWindow' },
    { text: 'pause: [true', code: 'YamlSyntax', reason: 'Paused', line: 2 },
  ])('$text → $code, and the change is held ($reason)', async ({ text, code, reason, warning, line }) => {
    const plan = await planOf(config(`${text}\n`));
    expect(plan.errors[0]).toMatchObject({ code, file: '.kerf/config.yaml', line: line ?? 1, ...(warning && { severity: 'warning' }) });
    expect(plan.decisions).toMatchObject([{ action: 'blocked', phase: 'Blocked', reason }]);
  });

  it('pause: no and freeze: {now: off} read as false, with a warning each', async () => {
    const plan = await planOf(config('pause: no\nfreeze: {now: off}\n'));
    expect(plan.errors).toMatchObject([{ code: 'Yaml11Boolean', line: 1, severity: 'warning' }, { code: 'Yaml11Boolean', line: 2, severity: 'warning' }]);
    expect(plan.decisions).toMatchObject([PROPOSED]);
  });

  it('an unknown key elsewhere is an error with a suggestion; the run goes on with the rest', async () => {
    const plan = await planOf(config('groupBy: per-workload\nreviwers: [alice]\n'));
    expect(plan.errors).toMatchObject([{ code: 'UnknownField', line: 2, column: 1, field: 'reviwers' }]);
    expect(plan.errors[0]?.message).toContain('did you mean "reviewers"?');
    expect(plan.decisions).toMatchObject([PROPOSED]);
  });

  it.each([
    ['paths: ["../x"]', 'is outside the repo'],
    ['paths: [/etc]', 'is outside the repo'],
    ['paths: [nonexistent]', 'is not a directory of the repo'],
    ['branchPrefix: "kerf bad/"', 'cannot start a git branch name'],
    ['branchPrefix: "kerf..x/"', 'cannot start a git branch name'],
  ])('%s stops the run (InputError, exit 2) before anything is planned', async (text, says) => {
    await expect(planOf(config(`${text}\n`))).rejects.toThrow(InputError);
    await expect(planOf(config(`${text}\n`))).rejects.toThrow(says);
  });
});
