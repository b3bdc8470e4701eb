// The floor plan and write are measured against, as its own process: read every YAML file of a
// repo and parse it with `yaml`'s parseAllDocuments, nothing more. Prints the document count.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

async function yamlFiles(dir: string, out: string[]): Promise<string[]> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await yamlFiles(path, out);
    else if (/\.ya?ml$/.test(entry.name)) out.push(path);
  }
  return out;
}

const root = process.argv[2];
if (root === undefined) throw new Error('usage: bare-parse <repo>');
let documents = 0;
for (const file of (await yamlFiles(root, [])).sort()) documents += parseAllDocuments(await readFile(file, 'utf8')).length;
console.log(documents);
