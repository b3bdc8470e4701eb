// Object builders for rule tests (VPA style): defaults that make a plain, healthy case, and
// `with…` options for what a row is about.
import type {
  ContainerRecommendation,
  ContainerSpec,
  KerfConfig,
  RightsizingPolicy,
  RightsizingRecommendation,
  Workload,
  WorkloadKind,
} from '../../src/model/types.js';
import { CONFIG_DEFAULTS } from '../../src/model/validate.js';

export function aContainer(overrides: Partial<ContainerSpec> = {}): ContainerSpec {
  return {
    name: 'app',
    init: false,
    image: 'ghcr.io/example/app:1.0',
    envNames: [],
    resizePolicy: [],
    requests: { cpu: '500m', memory: '512Mi' },
    limits: { memory: '1Gi' },
    ...overrides,
  };
}

export function aWorkload(overrides: Partial<Omit<Workload, 'ref'>> & { kind?: WorkloadKind; name?: string; namespace?: string } = {}): Workload {
  const { kind = 'Deployment', name = 'cart', namespace = 'shop', ...rest } = overrides;
  return {
    ref: { namespace, kind, name },
    labels: { app: name },
    annotations: {},
    replicas: 3,
    templateLabels: { app: name },
    updateStrategy: {},
    containers: [aContainer()],
    source: { file: `apps/${name}.yaml`, line: 1, document: 0, name },
    ...rest,
  };
}

export function aPolicy(apply: Partial<RightsizingPolicy['apply']> = {}, overrides: Partial<RightsizingPolicy> = {}): RightsizingPolicy {
  return {
    name: 'default',
    namespace: 'shop',
    mode: 'auto-patch',
    selector: {},
    apply: {
      strategy: 'in-place',
      fallbackAfter: '10m',
      maintenanceWindows: [],
      freezeWindows: [],
      onDelete: { maxPodDeletesPerRun: 1, settle: '30s' },
      ...apply,
    },
    ...overrides,
  };
}

export function aRecommendation(
  containers: ContainerRecommendation[] = [{ name: 'app', requests: { cpu: '250m', memory: '384Mi' }, limits: {} }],
  overrides: Partial<RightsizingRecommendation> = {},
): RightsizingRecommendation {
  return {
    name: 'cart',
    namespace: 'shop',
    targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'cart' },
    containers,
    status: {},
    ...overrides,
  };
}

export function aConfig(overrides: Partial<KerfConfig> = {}): KerfConfig {
  return { ...CONFIG_DEFAULTS, ...overrides };
}
