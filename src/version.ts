// The version the CLI reports: package.json's, which the release keeps equal to the image tag and the
// Action's tag. Imported rather than read at run time, so the bundle carries it and needs no package.json.
import packageJson from '../package.json' with { type: 'json' };

export const VERSION: string = packageJson.version;
