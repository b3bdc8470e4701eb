// For tests that run kerf as a process with ports of its own: a port nobody listens on, and waiting
// for something the process does.
import { createServer } from 'node:net';

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `probe` until it gives a value (a throw counts as not yet), every 100 ms for `attempts` tries. */
export async function until<T>(probe: () => Promise<T | undefined>, what: string, attempts = 100): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}
