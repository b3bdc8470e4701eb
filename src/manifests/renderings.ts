// Placeholder until the kustomize graph lands: every file is applied as written.
import type { RenderingView, ScannedFile } from './scan.js';

export function kustomizeRenderings(_files: Map<string, ScannedFile>): RenderingView {
  return { renderingsOf: () => undefined, isPatch: () => false };
}
