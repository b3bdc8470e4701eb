// Asserting on the Status body of a failed client-node call.
import { ApiException } from '@kubernetes/client-node';
import type { StatusBody } from './api-error.js';

/** Awaits a call that must fail and returns the apiserver's Status body. */
export async function failure(call: Promise<unknown>): Promise<StatusBody> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof ApiException)) throw error;
    const body = (error as ApiException<unknown>).body;
    const status = (typeof body === 'string' ? JSON.parse(body) : body) as StatusBody;
    if (status.code !== error.code) throw new Error(`HTTP ${error.code} but Status.code ${status.code}`);
    return status;
  }
  throw new Error('expected the call to fail');
}
