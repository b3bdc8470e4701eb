// Types of render-install.mjs, for the tests that import it.
export declare function renderInstall(reference: string, kubectl?: string): string;
