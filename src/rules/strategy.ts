// Which strategy applies (S1, F3, R3, N3) and why it differs from the configured one.
import type {
  Change,
  ContainerSpec,
  RightsizingPolicy,
  RightsizingRecommendation,
  Strategy,
  StrategyReason,
  Workload,
} from '../model/types.js';
import { STRATEGIES } from '../model/types.js';

export const STRATEGY_ANNOTATION = 'kerf.getkerf.dev/strategy';
export const RUNTIME_ANNOTATION = 'kerf.getkerf.dev/runtime';

export type Runtime = 'jvm' | 'python' | 'other';

const JVM_IMAGE_WORDS = ['java', 'jdk', 'jre', 'temurin', 'corretto', 'zulu', 'openjdk', 'graalvm'];
const PYTHON_IMAGE_WORDS = ['python', 'pypy'];
const JVM_ENV = ['JAVA_TOOL_OPTIONS', 'JAVA_OPTS', 'JDK_JAVA_OPTIONS'];

export class StrategyAnnotationError extends Error {
  readonly code = 'InvalidStrategyAnnotation';
}

/** S1: the workload annotation overrides the policy; an invalid annotation is an error, not a guess. */
export function configuredStrategy(workload: Workload, policy: RightsizingPolicy): Strategy {
  const annotated = workload.annotations[STRATEGY_ANNOTATION];
  if (annotated === undefined) return policy.apply.strategy;
  if (!(STRATEGIES as readonly string[]).includes(annotated)) {
    throw new StrategyAnnotationError(
      `${workload.source.file}: ${workload.ref.kind} ${workload.ref.namespace}/${workload.ref.name}: annotation ${STRATEGY_ANNOTATION} must be one of ${STRATEGIES.join(', ')}, got ${JSON.stringify(annotated)}`,
    );
  }
  return annotated as Strategy;
}

/** The image's repository path and tag, without registry host and digest. */
function imageName(image: string): string {
  const withoutDigest = image.split('@')[0] ?? '';
  const parts = withoutDigest.split('/');
  const first = parts[0] ?? '';
  if (parts.length > 1 && (first.includes('.') || first.includes(':') || first === 'localhost')) parts.shift();
  return parts.join('/').toLowerCase();
}

/** N3: the workload annotation wins over the image name and the JVM environment variables. */
export function containerRuntime(workload: Workload, container: ContainerSpec): Runtime {
  const annotated = workload.annotations[RUNTIME_ANNOTATION];
  if (annotated === 'jvm' || annotated === 'python' || annotated === 'other') return annotated;
  const name = imageName(container.image);
  if (JVM_IMAGE_WORDS.some((word) => name.includes(word))) return 'jvm';
  if (PYTHON_IMAGE_WORDS.some((word) => name.includes(word))) return 'python';
  if (container.envNames.some((env) => JVM_ENV.includes(env))) return 'jvm';
  return 'other';
}

export function restartPolicyFor(container: ContainerSpec, resource: 'cpu' | 'memory'): string {
  return container.resizePolicy.find((policy) => policy.resourceName === resource)?.restartPolicy ?? 'NotRequired';
}

/** Whether an in-place resize of these changes restarts a container (its resizePolicy says so). */
export function resizeRestartsContainer(workload: Workload, changes: readonly Change[]): boolean {
  return changes.some((change) => {
    const container = workload.containers.find((c) => c.name === change.container);
    const resource = change.field.endsWith('cpu') ? 'cpu' : 'memory';
    return container !== undefined && restartPolicyFor(container, resource) === 'RestartContainer';
  });
}

/** N3: a JVM/Python memory change without RestartContainer for memory needs a rollout. */
export function needsJvmAwareRollout(workload: Workload, changes: readonly Change[]): boolean {
  return changes.some((change) => {
    if (!change.field.endsWith('memory')) return false;
    const container = workload.containers.find((c) => c.name === change.container);
    return (
      container !== undefined &&
      containerRuntime(workload, container) !== 'other' &&
      restartPolicyFor(container, 'memory') !== 'RestartContainer'
    );
  });
}

/**
 * F3: a fallback recorded for the strategy that is still configured sticks. A rollout recorded for
 * an HPA or a JVM (R3, N3) is not a fallback: it follows the workload, so it is worked out afresh.
 */
export function hasStickyFallback(recommendation: RightsizingRecommendation, configured: Strategy): boolean {
  const { status } = recommendation;
  const derived = status.reason === 'HPACoordination' || status.reason === 'JVMMemory';
  return configured === 'in-place' && status.strategy === 'rollout' && status.configuredStrategy === configured && !derived;
}

export interface EffectiveStrategy {
  strategy: Strategy;
  reason: StrategyReason | null;
}

/** Only in-place gives way (to a rollout); rollout and deferred already change the template. */
export function effectiveStrategy(input: {
  configured: Strategy;
  workload: Workload;
  recommendation: RightsizingRecommendation;
  changes: readonly Change[];
  hasHpa: boolean;
}): EffectiveStrategy {
  const { configured, workload, recommendation, changes, hasHpa } = input;
  if (configured !== 'in-place') return { strategy: configured, reason: null };
  if (hasStickyFallback(recommendation, configured)) return { strategy: 'rollout', reason: 'Fallback' };
  if (hasHpa) return { strategy: 'rollout', reason: 'HPACoordination' };
  if (needsJvmAwareRollout(workload, changes)) return { strategy: 'rollout', reason: 'JVMMemory' };
  return { strategy: 'in-place', reason: null };
}
