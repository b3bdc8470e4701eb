// YAML as plain data, for modules that read or write whole documents without editing them in
// place (byte-exact edits are edit-*.ts's): the `yaml` library stays inside manifests/.
import { parse, parseAllDocuments, stringify } from 'yaml';

/** A single-document text as plain data; throws the parser's error on malformed YAML. */
export function yamlData(text: string): unknown {
  return parse(text);
}

/** Document `index` of a multi-document text as plain data (duplicate keys allowed, as the scan reads them). */
export function yamlDocumentData(text: string, index: number): unknown {
  return parseAllDocuments(text, { uniqueKeys: false })[index]?.toJS();
}

/** `value` as YAML text, long strings never folded. */
export function yamlText(value: unknown): string {
  return stringify(value, { lineWidth: 0 });
}
