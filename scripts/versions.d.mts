// Types of versions.mjs, for the tests that import it.
export declare const IMAGE: string;
export declare function versionsIn(root?: string): Record<string, string | undefined>;
export declare function versionProblems(root?: string, tag?: string): string[];
