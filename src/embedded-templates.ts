// The bundled CLI's copies of templates/ files, put in by scripts/build.mjs: the image and the npm
// package hold one file and no templates/ folder. Elsewhere (lib/, src/, the Action) they are read
// from templates/ beside the code.
declare const KERF_TEMPLATES: Readonly<Record<string, string>> | undefined;

/** The embedded text of `templates/<name>`, or undefined outside the bundled CLI. */
export function embeddedTemplate(name: string): string | undefined {
  return typeof KERF_TEMPLATES === 'object' ? KERF_TEMPLATES[name] : undefined;
}
