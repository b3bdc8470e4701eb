// A decision builder for gitops tests: a plain rollout PR of shop/Deployment/cart unless told otherwise.
import type { Change, Decision } from '../../src/model/types.js';

export function aChange(overrides: Partial<Change> = {}): Change {
  return { container: 'app', field: 'requests.cpu', from: '500m', to: '250m', file: 'apps/cart.yaml', ...overrides };
}

export function aDecision(overrides: Partial<Decision> & { name?: string; namespace?: string; kind?: string } = {}): Decision {
  const { name = 'cart', namespace = 'shop', kind = 'Deployment', ...rest } = overrides;
  return {
    target: { namespace, kind, name },
    configuredStrategy: 'rollout',
    strategy: 'rollout',
    action: 'pull-request',
    phase: 'Proposed',
    reason: null,
    nextWindow: null,
    changes: [aChange({ file: `apps/${name}.yaml` }), aChange({ field: 'requests.memory', from: '512Mi', to: '384Mi', file: `apps/${name}.yaml` })],
    ...rest,
  };
}
