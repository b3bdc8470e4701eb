// Window state per list of windows and `now`, cached: thousands of workloads share a few policies,
// so a list is compiled once and evaluated once per `now` (the plan benchmark depends on this).
import type { WindowSpec } from '../model/types.js';
import { compileWindows, evaluateWindows, type CompiledWindows, type WindowKind } from './window.js';
import { nextFreeWindow, type FreeWindow } from './window-free.js';

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

const free = new WeakMap<readonly WindowSpec[], { at: number; freezes: readonly (readonly WindowSpec[])[]; window: FreeWindow | null }>();

/** nextFreeWindow over spec lists, cached per maintenance list, freeze lists and `now`. */
export function freeWindow(maintenance: readonly WindowSpec[], freezes: readonly (readonly WindowSpec[])[], now: Date): FreeWindow | null {
  const cached = free.get(maintenance);
  const same = cached && cached.at === now.getTime() && cached.freezes.length === freezes.length && cached.freezes.every((list, i) => list === freezes[i]);
  if (cached && same) return cached.window;
  const window = nextFreeWindow(
    compiledWindows(maintenance, 'maintenance'),
    freezes.map((list) => compiledWindows(list, 'freeze')),
    now,
  );
  free.set(maintenance, { at: now.getTime(), freezes, window });
  return window;
}
