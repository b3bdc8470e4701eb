// An edit worker's whole program: the entry module imports this instead of its command.
import { serveChunks } from '../util/worker-pool.js';
import { editSeparateFile } from './edits.js';

export function serveEdits(): void {
  serveChunks(editSeparateFile);
}
