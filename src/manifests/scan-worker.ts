// A scan worker's whole program: the entry module imports this instead of its command.
import { serveChunks } from '../util/worker-pool.js';
import { scanFile, type FileScan, type FileScanResult } from './scan-file.js';

export function serveScans(): void {
  serveChunks(({ root, ...scan }: { root: string } & FileScan): FileScanResult => scanFile(root, scan));
}
