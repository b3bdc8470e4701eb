export type KustomizeErrorCode = 'KUSTOMIZE_NOT_A_MAPPING' | 'KUSTOMIZE_BAD_PATCH_FILE';

/** A caller handed in text that kerf cannot edit safely; the message names the file and field. */
export class KustomizeError extends Error {
  readonly code: KustomizeErrorCode;
  readonly file: string;

  constructor(code: KustomizeErrorCode, file: string, message: string, options?: { cause?: unknown }) {
    super(`${file}: ${message}`, options);
    this.name = 'KustomizeError';
    this.code = code;
    this.file = file;
  }
}

/**
 * Things kerf cannot resolve (remote bases, helm charts, missing files, transformers that rename) are
 * reported, never fatal: the rest of the tree is still usable.
 */
export type KustomizeWarningCode =
  | 'remote-resource'
  | 'missing-file'
  | 'unscanned-file'
  | 'outside-repository'
  | 'outside-kustomization-root'
  | 'not-a-kustomization'
  | 'helm-chart'
  | 'unsupported-transformer'
  | 'unparsed-patch'
  | 'unscanned-patch'
  | 'patch-matches-nothing'
  | 'cycle'
  | 'unused-component';

export interface KustomizeWarning {
  code: KustomizeWarningCode;
  /** The kustomization (or patch) file the problem was found in. */
  file: string;
  message: string;
}
