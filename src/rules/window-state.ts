// Window state per list of windows and `now`, cached: thousands of workloads share a few policies,
// so a list is compiled once and evaluated once per `now` (the plan benchmark depends on this).
import type { WindowSpec } from '../model/types.js';
import { compileWindows, evaluateWindows, type CompiledWindows, type WindowKind } from './window.js';

export interface WindowState {
  open: boolean;
  nextWindow: Date | null;
}

const compiled = new WeakMap<readonly WindowSpec[], CompiledWindows>();
const evaluated = new WeakMap<readonly WindowSpec[], { at: number; kind: WindowKind; state: WindowState }>();

export function compiledWindows(specs: readonly WindowSpec[], kind: WindowKind): CompiledWindows {
  let result = compiled.get(specs);
  if (!result) {
    result = compileWindows(specs, kind === 'maintenance' ? 'maintenanceWindows' : 'freezeWindows');
    compiled.set(specs, result);
  }
  return result;
}

export function windowState(specs: readonly WindowSpec[], kind: WindowKind, now: Date): WindowState {
  const cached = evaluated.get(specs);
  if (cached && cached.at === now.getTime() && cached.kind === kind) return cached.state;
  const state = evaluateWindows(compiledWindows(specs, kind), kind, now);
  evaluated.set(specs, { at: now.getTime(), kind, state });
  return state;
}
